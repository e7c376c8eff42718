/** Stage 5 — emit: render the plan as YAML text (fixed key order, LF line ends, byte-stable). */
import type { JobPlan, StepPlan } from "../plan/types.ts";
import { BlankLine, Comment, dq, plain, writeYaml, writeYamlInto, type YValue } from "../yaml/writer.ts";

const JOB_ORDER = [
  "name",
  "needs",
  "ifNote",
  "if",
  "runs-on",
  // gh-aw writes a job's service containers right after its runner.
  "services",
  "environment",
  "permissions",
  "concurrency",
  "timeout-minutes",
  "continue-on-error",
  "env",
  "outputs",
  "container",
  "strategy",
  "defaults",
  "uses",
  "with",
  "secrets",
  "steps",
];

function orderedJob(job: JobPlan): Record<string, YValue> {
  const out: Record<string, YValue> = {};
  for (const k of JOB_ORDER) {
    const v = job[k];
    if (v === undefined) continue;
    if (k === "needs" && Array.isArray(v) && v.length === 1) out.needs = v[0] as string;
    else if (k === "steps") out.steps = (v as StepPlan[]).map(cleanStep) as YValue;
    else out[k] = v as YValue;
  }
  for (const [k, v] of Object.entries(job)) {
    if (!(k in out) && v !== undefined && !JOB_ORDER.includes(k)) out[k] = v as YValue;
  }
  return out;
}

function cleanStep(step: StepPlan): YValue {
  if ((step as unknown) instanceof Comment) return step as unknown as Comment;
  if ((step as unknown) instanceof BlankLine) return step as unknown as BlankLine;
  const out: Record<string, YValue> = {};
  for (const [k, v] of Object.entries(step)) if (v !== undefined) out[k] = v;
  return out;
}

/** The top-level sections of a lock (after the header). */
export interface LockBody {
  name: string;
  on: Record<string, YValue>;
  concurrency: Record<string, YValue>;
  runName: string;
  env: Record<string, YValue>;
  jobs: Record<string, JobPlan>;
  ifCondition?: string;
  /** Writes gh-aw's note that the frontmatter `cache:` went into the agent job's steps. */
  cacheNote?: boolean;
  /**
   * Whether the sequences of `on:` are indented under their key and its comments end the line before them
   * (v0.87.4), rather than compact sequences and comment lines (v0.76.1).
   */
  indentOnSequences?: boolean;
}

/** Renders the body of the lock (name … jobs). */
export function emitBody(b: LockBody): string {
  const parts: string[] = [];
  // gh-aw writes `on:` directly under `name:`; every later section is separated by a blank line.
  parts.push(
    [
      `name: ${dqText(b.name)}`,
      "on:",
      ...writeYaml(b.on, 1, {
        indentSequences: !!b.indentOnSequences,
        trailingComments: b.indentOnSequences,
        flatCommented: b.indentOnSequences,
      }),
    ].join("\n"),
  );
  parts.push("permissions: {}");
  parts.push(["concurrency:", ...writeYaml(b.concurrency, 1)].join("\n"));
  parts.push(`run-name: ${dqText(b.runName)}`);
  if (Object.keys(b.env).length > 0) parts.push(["env:", ...writeYaml(b.env, 1)].join("\n"));
  if (b.cacheNote) {
    parts.push("# Cache configuration from frontmatter was processed and added to the main job steps");
  }
  const jobLines = ["jobs:"];
  const names = Object.keys(b.jobs).sort();
  names.forEach((name, i) => {
    writeYamlInto(jobLines, { [name]: orderedJob(b.jobs[name]) }, 1);
    if (i < names.length - 1) jobLines.push("");
  });
  parts.push(jobLines.join("\n"));
  // gh-aw ends every lock with an empty line.
  return parts.join("\n\n") + "\n\n";
}

function dqText(s: string): string {
  return writeYaml(dq(s) as YValue, 0)[0];
}

export { plain };
