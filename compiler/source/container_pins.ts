/**
 * `aw.json` `container_pins`: a map from an image reference as workflows name it (`image:tag`) to the image to
 * run instead (`{ image, digest }`, digest in `sha256:<64 hex>` form). Enterprises use it to redirect to an
 * internal registry and to pin by digest; the compiled lock then names `image@digest` everywhere it pulls.
 */
import { z } from "zod";

/** One pin: the replacement image and its content digest. */
export interface ContainerPin {
  /** Image reference to pull (may name another registry). */
  image: string;
  /** `sha256:<64 lowercase hex>`. */
  digest: string;
}

const pinSchema = z.object({
  image: z.string().min(1, { error: "image must be a non-empty image reference" })
    .refine((v) => !v.includes("@"), { error: "image must not carry a digest; put it in digest" }),
  digest: z.string().regex(/^sha256:[0-9a-f]{64}$/, {
    error: "digest must be sha256: followed by 64 lowercase hex characters",
  }),
}).strict();

/** Validates `container_pins`; returns the pins and one message per problem (naming the image key). */
export function parseContainerPins(raw: unknown): { pins: Record<string, ContainerPin>; problems: string[] } {
  if (raw === undefined) return { pins: {}, problems: [] };
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    return {
      pins: {},
      problems: ["container_pins must be an object mapping image references to {image, digest}"],
    };
  }
  const pins: Record<string, ContainerPin> = {};
  const problems: string[] = [];
  for (const [key, value] of Object.entries(raw)) {
    const parsed = pinSchema.safeParse(value);
    if (parsed.success) pins[key] = parsed.data;
    else {problems.push(`container_pins[${JSON.stringify(key)}]: ${
        parsed.error.issues.map((i) => i.message).join("; ")
      }`);}
  }
  return { pins, problems };
}

/** Replaces each image that has a pin by `image@digest`; images without a pin are returned unchanged. */
export function applyContainerPins(
  images: readonly string[],
  pins: Readonly<Record<string, ContainerPin>>,
): string[] {
  return images.map((ref) => {
    const pin = pins[ref];
    return pin ? `${pin.image}@${pin.digest}` : ref;
  });
}
