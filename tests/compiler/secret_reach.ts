/**
 * Which secrets each job and each step of an emitted lock can read. A job reads every `secrets.X` written
 * anywhere in its own definition (its env, container, services, `with:`, scripts) and in the workflow's
 * top-level `env:`; a step reads the job-level ones plus those written in the step itself. Reusable by any
 * test that checks who can see a credential.
 */
import { parse } from "yaml";

/** The secrets of one step: its name (or id, or index) and the secrets written in it. */
export interface StepSecrets {
  step: string;
  secrets: string[];
}

/** The secrets of one job: those every step sees, all the job can read, and each step's own. */
export interface JobSecrets {
  /** Readable by every step: the workflow's env, the job's env, container and services. */
  shared: string[];
  /** Everything the job's runner can read (shared ∪ every step's). */
  all: string[];
  steps: StepSecrets[];
}

const SECRET_REF = /\bsecrets\.([A-Za-z_][A-Za-z0-9_]*)/g;

/** Secret names written in any string under `value` (keys and values alike), sorted, without repeats. */
export function secretsIn(value: unknown): string[] {
  const found = new Set<string>();
  const walk = (v: unknown): void => {
    if (typeof v === "string") { for (const m of v.matchAll(SECRET_REF)) found.add(m[1]); }
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) {
        walk(k);
        walk(x);
      }
    }
  };
  walk(value);
  return [...found].sort();
}

/** Secrets per job and per step of a lock file's text. */
export function secretsPerJob(lockText: string): Record<string, JobSecrets> {
  const doc = parse(lockText) as Record<string, unknown>;
  const workflowEnv = secretsIn(doc.env);
  const jobs = (doc.jobs ?? {}) as Record<string, Record<string, unknown>>;
  const out: Record<string, JobSecrets> = {};
  for (const [id, job] of Object.entries(jobs)) {
    const { steps, ...rest } = job;
    // A reusable-workflow call with `secrets: inherit` hands over every secret ("*").
    const inherit = rest.secrets === "inherit" ? ["*"] : [];
    const shared = [...new Set([...workflowEnv, ...inherit, ...secretsIn(rest)])].sort();
    const stepList = Array.isArray(steps) ? steps as Record<string, unknown>[] : [];
    const perStep = stepList.map((s, i) => ({
      step: String(s.name ?? s.id ?? `#${i}`),
      secrets: [...new Set([...shared, ...secretsIn(s)])].sort(),
    }));
    const all = [...new Set([...shared, ...perStep.flatMap((s) => s.secrets)])].sort();
    out[id] = { shared, all, steps: perStep };
  }
  return out;
}
