/**
 * The agent job's language runtimes as gh-aw places them: detected from the custom steps as the lock writes
 * them, the user's own plain setup steps folded in, and the setup steps put before the custom steps, or right
 * after the custom steps' checkout when they check the repository out themselves.
 */
import type { StepPlan } from "../types.ts";
import type { Frontmatter } from "../../source/schema.ts";
import { writeYaml, type YValue } from "../../yaml/writer.ts";
import { dedupeUserSetupSteps, detectRuntimes, GH_AW_RUNTIME, runtimeSetupSteps } from "./runtimes.ts";
import { objectOf } from "../../source/values.ts";

/** Inputs of {@link planRuntimes}. */
export interface RuntimePlanInput {
  /** The custom steps (imported steps first) as written, and the same pinned, one for one. */
  rawSteps: unknown[];
  pinnedSteps: StepPlan[];
  mcpServers: Record<string, Record<string, unknown>>;
  runtimes: Frontmatter["runtimes"];
  actionMode: "dev" | "release";
  pinText: (repo: string, version: string) => Promise<string>;
}

/** The custom steps left after the dedup, the runtime setup steps and where they go. */
export interface RuntimePlan {
  customSteps: StepPlan[];
  runtimeSteps: StepPlan[];
  /** The runtime steps go among the custom steps, after their checkout ({@link insertionAfterCheckout}). */
  afterCheckout: boolean;
}

/** Plans the runtime setup of the agent job. */
export async function planRuntimes(input: RuntimePlanInput): Promise<RuntimePlan> {
  const detected = detectRuntimes({
    stepsText: writeYaml(input.pinnedSteps as YValue).join("\n"),
    mcpServers: input.mcpServers,
    runtimes: input.runtimes,
  });
  const deduped = dedupeUserSetupSteps(detected, input.rawSteps);
  const customSteps = input.pinnedSteps.filter((_, i) => deduped.keep[i]);
  const pins: Record<string, string> = {};
  for (const n of deduped.needs) {
    const version = n.def.id === GH_AW_RUNTIME.id && input.actionMode === "dev"
      ? undefined
      : n.def.actionVersion;
    if (version !== undefined) pins[n.def.action] = await input.pinText(n.def.action, version);
  }
  const runtimeSteps = runtimeSetupSteps(deduped.needs, {
    pins,
    carried: deduped.carried,
    actionMode: input.actionMode,
  });
  // Custom steps that check the repository out themselves get the setup after that checkout.
  const afterCheckout = input.rawSteps.some((step, i) => deduped.keep[i] && checksOut(step));
  return { customSteps, runtimeSteps, afterCheckout };
}

/** gh-aw's `ContainsCheckout`: a step using `actions/checkout` (any repository). */
function checksOut(step: unknown): boolean {
  const uses = objectOf(step).uses;
  if (typeof uses !== "string") return false;
  const ref = uses.trim().replace(/^["']|["']$/g, "").toLowerCase();
  return ref === "actions/checkout" || ref.startsWith("actions/checkout@");
}

const startsStep = (line: string) => /^\s*- (name|uses):/.test(line);

/**
 * gh-aw's line scan of the custom steps as written (after the DIFC proxy's rewrite): at a line opening a step with `- name:` or `- uses:`, it looks at the
 * step's following lines for one holding `uses:` and `checkout`; when found, it copies lines up to the next
 * line opening a step that way (steps opening with another key are swallowed) and inserts there.
 * Returns the index of the custom step the setup goes before (the step count: at the end); undefined when
 * the scan finds no checkout, and gh-aw then writes no runtime setup at all.
 */
export function insertionAfterCheckout(steps: StepPlan[]): number | undefined {
  const lines: string[] = [];
  const firstLine: number[] = [];
  for (const step of steps) {
    firstLine.push(lines.length);
    lines.push(...writeYaml([step] as YValue));
  }
  for (let i = 0; i < lines.length; i++) {
    if (!startsStep(lines[i])) continue;
    let j = i + 1;
    while (j < lines.length && !startsStep(lines[j])) {
      if (lines[j].includes("uses:") && lines[j].includes("checkout")) break;
      j++;
    }
    if (j >= lines.length || startsStep(lines[j])) continue;
    let end = i + 1;
    while (end < lines.length && !startsStep(lines[end])) end++;
    const next = firstLine.findIndex((at) => at >= end);
    return next < 0 ? steps.length : next;
  }
  return undefined;
}
