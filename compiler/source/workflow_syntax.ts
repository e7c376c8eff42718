/**
 * The parts of the frontmatter that are copied into the lock as GitHub Actions syntax — `on:` event filters,
 * custom `jobs:`, `steps:`, `runs-on`, `services`, `container` — checked against GitHub's workflow syntax, so
 * a mistake is reported at its line in plain words instead of surfacing as a broken lock on GitHub. gh-aw's
 * own additions to these shapes (`names`, `forks`, `lock-for-agent`, built-in job blocks…) are accepted.
 */
import type { DiagnosticCode } from "./diagnostics.ts";
import { checkTrigger, found, isMapping, isTextOrTexts, type Report } from "./trigger_syntax.ts";

/** One shape mistake: where it is, in plain words, with a hint. */
export interface SyntaxProblem {
  code: DiagnosticCode;
  path: (string | number)[];
  message: string;
  hint: string;
}

type Path = (string | number)[];

const STEP_KEYS = [
  "id",
  "if",
  "name",
  "uses",
  "run",
  "shell",
  "with",
  "env",
  "continue-on-error",
  "timeout-minutes",
  "working-directory",
];

function checkSteps(steps: unknown, path: Path, report: Report): void {
  if (!Array.isArray(steps)) return;
  steps.forEach((step, i) => {
    const at = [...path, i];
    if (!isMapping(step)) {
      report(
        "invalid-step",
        at,
        `a step must be a mapping with \`run:\` or \`uses:\`, not ${found(step)}`,
        "for example `- run: npm test`",
      );
      return;
    }
    const kinds = ["run", "uses"].filter((k) => step[k] !== undefined);
    if (kinds.length !== 1) {
      report(
        "invalid-step",
        at,
        kinds.length === 0
          ? "a step needs `run:` (a command) or `uses:` (an action)"
          : "a step cannot have both `run:` and `uses:`",
        "split it into two steps, or keep one of them",
      );
    }
    for (const key of Object.keys(step)) {
      if (!STEP_KEYS.includes(key)) {
        report(
          "invalid-step",
          [...at, key],
          `\`${key}\` is not a step key`,
          `a step's keys are ${STEP_KEYS.join(", ")}`,
        );
      }
    }
  });
}

function checkRunsOn(value: unknown, path: Path, report: Report): void {
  if (value === undefined || isTextOrTexts(value)) return;
  const hint = "for example `runs-on: ubuntu-latest`, a list of labels, or `{group: …, labels: […]}`";
  if (!isMapping(value)) {
    report(
      "invalid-runs-on",
      path,
      `\`runs-on\` must be a runner label, a list of labels or a group, not ${found(value)}`,
      hint,
    );
    return;
  }
  for (const [key, v] of Object.entries(value)) {
    if (!["group", "labels"].includes(key) || !isTextOrTexts(v)) {
      report(
        "invalid-runs-on",
        [...path, key],
        `\`runs-on.${key}\` is not a runner group or label list`,
        hint,
      );
    }
  }
}

const CONTAINER_KEYS = ["image", "credentials", "env", "ports", "volumes", "options"];

/** One container definition (`container:`, or a service); `what` names it in messages. */
function checkContainer(
  value: unknown,
  path: Path,
  what: string,
  code: DiagnosticCode,
  report: Report,
): void {
  const hint = "for example `{image: postgres:16, ports: [5432]}`";
  if (typeof value === "string" && code === "invalid-container") return;
  if (!isMapping(value)) {
    report(
      code,
      path,
      `${what} must be ${
        code === "invalid-container" ? "an image name or " : ""
      }a mapping with \`image\`, not ${found(value)}`,
      hint,
    );
    return;
  }
  if (typeof value.image !== "string") report(code, path, `${what} needs an \`image\` (text)`, hint);
  for (const key of Object.keys(value)) {
    if (!CONTAINER_KEYS.includes(key)) {
      report(
        code,
        [...path, key],
        `\`${key}\` is not a key of ${what}`,
        `its keys are ${CONTAINER_KEYS.join(", ")}`,
      );
    }
  }
  for (const key of ["ports", "volumes"]) {
    if (value[key] !== undefined && !Array.isArray(value[key])) {
      report(code, [...path, key], `\`${key}\` of ${what} must be a list, not ${found(value[key])}`, hint);
    }
  }
}

function checkServices(value: unknown, path: Path, report: Report): void {
  if (value === undefined) return;
  if (!isMapping(value)) {
    report(
      "invalid-service",
      path,
      `\`services\` must map service names to containers, not ${found(value)}`,
      "for example `services: {db: {image: postgres:16}}`",
    );
    return;
  }
  for (const [name, service] of Object.entries(value)) {
    checkContainer(service, [...path, name], `service \`${name}\``, "invalid-service", report);
  }
}

/** Job keys GitHub accepts; a job calling a reusable workflow takes the subset below. */
const JOB_KEYS = [
  "name",
  "permissions",
  "needs",
  "if",
  "runs-on",
  "environment",
  "concurrency",
  "outputs",
  "env",
  "defaults",
  "steps",
  "timeout-minutes",
  "strategy",
  "continue-on-error",
  "container",
  "services",
  "uses",
  "with",
  "secrets",
];
const REUSABLE_JOB_KEYS = [
  "name",
  "uses",
  "with",
  "secrets",
  "needs",
  "if",
  "permissions",
  "concurrency",
  "strategy",
  "outputs",
];
/** gh-aw's built-in jobs: a block under one of these names adjusts that job and has gh-aw's own shape. */
const BUILT_IN_JOBS = [
  "pre_activation",
  "pre-activation",
  "activation",
  "agent",
  "detection",
  "safe_outputs",
  "conclusion",
];

function checkJobs(jobs: unknown, report: Report): void {
  if (!isMapping(jobs)) return;
  for (const [name, job] of Object.entries(jobs)) {
    if (BUILT_IN_JOBS.includes(name) || !isMapping(job)) continue;
    const path = ["jobs", name];
    const reusable = job.uses !== undefined;
    const keys = reusable ? REUSABLE_JOB_KEYS : JOB_KEYS;
    for (const key of Object.keys(job)) {
      if (!keys.includes(key)) {
        report(
          "invalid-job",
          [...path, key],
          reusable && JOB_KEYS.includes(key)
            ? `job \`${name}\` calls a reusable workflow (\`uses:\`), which cannot also have \`${key}\``
            : `\`${key}\` is not a job key`,
          reusable
            ? `a reusable-workflow job's keys are ${keys.join(", ")}`
            : `a job's keys are ${keys.join(", ")}`,
        );
      }
    }
    if (!reusable && !Array.isArray(job.steps)) {
      report(
        "invalid-job",
        path,
        `job \`${name}\` needs \`steps:\` (a list) or \`uses:\` (a reusable workflow)`,
        "for example `steps: [{run: make test}]`",
      );
    }
    if (job.needs !== undefined && !isTextOrTexts(job.needs)) {
      report(
        "invalid-job",
        [...path, "needs"],
        `\`needs\` of job \`${name}\` must be a job name or a list of them, not ${found(job.needs)}`,
        "for example `needs: [build]`",
      );
    }
    if (job.if !== undefined && !["string", "boolean", "number"].includes(typeof job.if)) {
      report(
        "invalid-job",
        [...path, "if"],
        `\`if\` of job \`${name}\` must be an expression, not ${found(job.if)}`,
        "for example `if: github.event_name == 'push'`",
      );
    }
    checkSteps(job.steps, [...path, "steps"], report);
    checkRunsOn(job["runs-on"], [...path, "runs-on"], report);
    checkServices(job.services, [...path, "services"], report);
    if (job.container !== undefined) {
      checkContainer(job.container, [...path, "container"], "`container`", "invalid-container", report);
    }
  }
}

/** Every GitHub-syntax shape mistake of a frontmatter (`data` is the raw parsed mapping). */
export function workflowSyntaxProblems(data: Record<string, unknown>): SyntaxProblem[] {
  const problems: SyntaxProblem[] = [];
  const report: Report = (code, path, message, hint) => problems.push({ code, path, message, hint });
  if (isMapping(data.on)) {
    for (const [event, value] of Object.entries(data.on)) checkTrigger(event, value, report);
  }
  for (const key of ["steps", "pre-steps", "pre-agent-steps", "post-steps"]) {
    checkSteps(data[key], [key], report);
  }
  checkJobs(data.jobs, report);
  checkRunsOn(data["runs-on"], ["runs-on"], report);
  checkServices(data.services, ["services"], report);
  if (data.container !== undefined) {
    checkContainer(data.container, ["container"], "`container`", "invalid-container", report);
  }
  return problems;
}
