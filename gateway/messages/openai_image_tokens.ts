/**
 * What an image costs an OpenAI model, by OpenAI's published rules (platform.openai.com/docs/guides/images-vision,
 * "Calculating costs"). Tile models: `detail: low` costs the base; otherwise the image is scaled to fit
 * 2048×2048, then its shortest side down to 768, and each 512-px tile costs the tile price on top of the
 * base. Patch models: 32-px patches capped at 1,536 (the image scaled down to fit, whole patches across),
 * times the model's multiplier, rounded up, plus one — the one is not in the guide but in what the API
 * bills: prompt_tokens measured for a 128×64 image plus five words (community.openai.com/t/1262691:
 * gpt-4.1-mini 26, gpt-4.1-nano 33, o4-mini 26) are one more than the guide's rule gives, on all three.
 * The gateway sends no `detail`, so OpenAI's `auto` applies; it is counted as `high`, the larger of the two.
 */
import type { ImageSize } from "./image_size.ts";

type Rule = { kind: "tile"; base: number; tile: number } | { kind: "patch"; multiplier: number };

/** Image rules by model prefix; the first match wins, so longer names come first. */
const RULES: ReadonlyArray<readonly [RegExp, Rule]> = [
  [/^gpt-4o-mini/, { kind: "tile", base: 2_833, tile: 5_667 }],
  [/^(gpt-4\.1-mini|gpt-5-mini)/, { kind: "patch", multiplier: 1.62 }],
  [/^(gpt-4\.1-nano|gpt-5-nano)/, { kind: "patch", multiplier: 2.46 }],
  [/^o4-mini/, { kind: "patch", multiplier: 1.72 }],
  [/^gpt-5/, { kind: "tile", base: 70, tile: 140 }],
  [/^(o1|o3)/, { kind: "tile", base: 75, tile: 150 }],
  [/^computer-use-preview/, { kind: "tile", base: 65, tile: 129 }],
];
const DEFAULT_RULE: Rule = { kind: "tile", base: 85, tile: 170 };

/** The size assumed for an image whose header cannot be read (a URL image). */
const ASSUMED: ImageSize = { width: 1024, height: 1024 };

const PATCH = 32;
const PATCH_CAP = 1_536;

function tiles(size: ImageSize): number {
  let { width, height } = size;
  const fit = Math.min(1, 2048 / Math.max(width, height));
  width *= fit;
  height *= fit;
  const shorten = Math.min(1, 768 / Math.min(width, height));
  width *= shorten;
  height *= shorten;
  return Math.ceil(width / 512) * Math.ceil(height / 512);
}

function patches(size: ImageSize): number {
  const { width, height } = size;
  const whole = Math.ceil(width / PATCH) * Math.ceil(height / PATCH);
  if (whole <= PATCH_CAP) return whole;
  const shrink = Math.sqrt((PATCH_CAP * PATCH * PATCH) / (width * height));
  // Scaled down once more so that a whole number of patches spans the width.
  const across = Math.floor((width * shrink) / PATCH);
  const tall = (height * across) / width;
  return across * Math.ceil(tall - 1e-9);
}

/** Tokens of one image for `model`, at `detail` (`auto` counts as `high`). */
export function openAiImageTokens(
  model: string,
  size: ImageSize | undefined,
  detail: "low" | "high" | "auto" = "auto",
): number {
  const name = model.toLowerCase();
  const rule = RULES.find(([pattern]) => pattern.test(name))?.[1] ?? DEFAULT_RULE;
  const image = size ?? ASSUMED;
  if (rule.kind === "patch") return Math.ceil(patches(image) * rule.multiplier) + 1;
  return detail === "low" ? rule.base : rule.base + rule.tile * tiles(image);
}
