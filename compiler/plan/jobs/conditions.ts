/**
 * Job conditions shared by the activation jobs: the workflow_run and fork guards, the event guards of
 * reactions and status comments, the user's `if:` combined with them, and how gh-aw writes a job's `if:`.
 */
import { dq, folded, plain, type YValue } from "../../yaml/writer.ts";
import { breakLongExpression, MAX_EXPRESSION_LINE } from "../../yaml/expr_break.ts";
import type { Event, Triggers } from "../../source/on_section.ts";

/**
 * A `workflow_run` from another repository or a fork never runs the agent (`workflow_run` runs with the base
 * repository's secrets whatever triggered the run; the lock's zizmor note relies on this guard).
 */
export const WORKFLOW_RUN_GUARD = "github.event_name != 'workflow_run' || " +
  "github.event.workflow_run.repository.id == github.repository_id && " +
  "(!(github.event.workflow_run.repository.fork))";

/** The zizmor suppression gh-aw writes beside the `workflow_run` trigger and above the guarded `if:`. */
export const WORKFLOW_RUN_ZIZMOR_NOTE =
  "zizmor: ignore[dangerous-triggers] - workflow_run trigger is secured with role and fork validation";

/**
 * `deployment_status: { state: [...] }`: GitHub has no such filter, so gh-aw runs the workflow only for the
 * listed states (other events pass).
 */
export function deploymentStateCondition(rawOn: Triggers): string | undefined {
  const raw = rawOn.deployment_status?.state;
  const states = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).map(String);
  if (states.length === 0) return undefined;
  return `github.event_name != 'deployment_status' || (${
    states.map((s) => `github.event.deployment_status.state == '${s}'`).join(" || ")
  })`;
}

/** Both conditions, either alone when the other is absent (`(a) && (b)` as gh-aw joins them). */
export function bothConditions(a: string | undefined, b: string | undefined): string | undefined {
  return a && b ? `(${a}) && (${b})` : a ?? b;
}

/** Whether `on.pull_request.forks` admits every fork (`"*"`), so no fork guard applies. */
export function allForksAllowed(pullRequest: Event | undefined): boolean {
  const forks = pullRequest?.forks;
  return forks === "*" || (Array.isArray(forks) && forks.includes("*"));
}

/** Pull requests from forks never run the agent. */
export const FORK_GUARD =
  "github.event_name != 'pull_request' || github.event.pull_request.head.repo.id == github.repository_id";

/** Pull requests other than the top of a stack never run the agent (v0.87). */
export const STACK_GUARD =
  "(github.event_name != 'pull_request' && github.event_name != 'pull_request_review') || " +
  "github.event.pull_request.stack == null || github.event.pull_request.stack.position == github.event.pull_request.stack.size";

/** The event type a dispatched run carries in its `aw_context`. */
export const AWC = "fromJSON(github.event.inputs.aw_context || '{}').event_type";
/** Events (direct, or dispatched with aw_context) that carry an issue, PR or discussion to react on. */
export const DIRECT_EVENT_GUARD =
  "github.event_name == 'issues' || github.event_name == 'issue_comment' || " +
  "github.event_name == 'pull_request_review_comment' || github.event_name == 'discussion' || " +
  "github.event_name == 'discussion_comment' || github.event_name == 'pull_request' && " +
  "github.event.pull_request.head.repo.id == github.repository_id";
/** With a centralized command router, dispatched runs carrying an item (aw_context) count too. */
export const EVENT_GUARD = DIRECT_EVENT_GUARD + " || github.event_name == 'workflow_dispatch' && (" +
  [
    "issues",
    "issue_comment",
    "pull_request_review_comment",
    "pull_request",
    "discussion",
    "discussion_comment",
  ]
    .map((e) => `${AWC} == '${e}'`).join(" || ") +
  ")";

/**
 * A job-level `if:` as gh-aw writes it: long conditions as a folded block, short ones plain, and one whose
 * string literals hold a newline double-quoted (the only style that keeps it).
 */
export function jobIf(cond: string): YValue {
  if (cond.includes("\n'")) return dq(cond);
  return cond.length > MAX_EXPRESSION_LINE && !cond.includes("startsWith(")
    ? folded(breakLongExpression(cond).join("\n") + "\n")
    : plain(cond);
}

/**
 * The event condition gh-aw puts on `pre_activation` (or `activation` without it): the frontmatter `if:`,
 * the fork guard and the `pull_request.names` label filter, each combined left to right as `(a) && (b)`.
 */
export function eventCondition(
  userIf: string | undefined,
  forkGuard: boolean,
  labelNames?: string[],
  /** Whether the fork guard comes with the stacked-PR guard (the target's `stackedPrGuard`). */
  stackGuard = false,
): string | undefined {
  const parts = [
    userIf,
    forkGuard ? FORK_GUARD : undefined,
    forkGuard && stackGuard ? STACK_GUARD : undefined,
    labelNames?.length
      ? "github.event_name != 'pull_request' || github.event.action != 'labeled' || " +
        labelNames.map((n) => `github.event.label.name == '${n}'`).join(" || ")
      : undefined,
  ].filter((c): c is string => !!c);
  return parts.reduce<string | undefined>((acc, c) => (acc ? `(${acc}) && (${c})` : c), undefined);
}
