/**
 * The pre-activation checks beyond roles, stop-time and the skip-if searches: the per-user rate limit
 * (`user-rate-limit`, legacy `rate-limit`) and the CI gate `on.skip-if-check-failing`. Each is read from the
 * frontmatter here and turned into its `actions/github-script` step as gh-aw v0.76 writes it.
 */
import type { StepPlan } from "../types.ts";
import { type JobCtx, scriptStep } from "../steps.ts";
import { dq, type YValue } from "../../yaml/writer.ts";
import { isObject, objectOf } from "../../source/values.ts";
import type { Frontmatter } from "../../source/schema.ts";

/** `user-rate-limit:` resolved: runs per window and minutes, the events counted, the roles exempted. */
export interface RateLimit {
  max: number;
  window: number;
  events: string[];
  ignoredRoles: string[];
}

/** `on.skip-if-check-failing:` — which check runs must pass (on which branch) before the workflow runs. */
export interface SkipIfCheckFailing {
  include: string[];
  exclude: string[];
  branch?: string;
  allowPending: boolean;
}

/**
 * Events the rate limit may count: those a user (not the schedule or a push) starts. Without `events:`
 * gh-aw counts the workflow's own triggers among them, in name order.
 */
const RATE_LIMITED_EVENTS = [
  "workflow_dispatch",
  "issue_comment",
  "pull_request_review",
  "pull_request_review_comment",
  "issues",
  "pull_request",
  "discussion_comment",
  "discussion",
];

/** gh-aw exempts the roles that can change the workflow anyway unless `ignored-roles:` says otherwise. */
const DEFAULT_IGNORED_ROLES = ["admin", "maintain", "write"];

const list = (v: unknown): string[] | undefined =>
  v === undefined || v === null ? undefined : (Array.isArray(v) ? v : [v]).map(String);

const positive = (v: unknown, fallback: number): number => typeof v === "number" && v > 0 ? v : fallback;

/** The rate limit of `user-rate-limit:` (or the legacy `rate-limit:`), given the workflow's GitHub events. */
export function rateLimitConfig(
  data: Pick<Frontmatter, "user-rate-limit" | "rate-limit">,
  triggerEvents: string[],
): RateLimit | undefined {
  const o = data["user-rate-limit"] ?? data["rate-limit"];
  if (o === undefined) return undefined;
  return {
    max: positive("max-runs-per-window" in o ? o["max-runs-per-window"] : o.max, 5),
    window: positive(o.window, 60),
    events: list(o.events) ??
      triggerEvents.filter((e) => RATE_LIMITED_EVENTS.includes(e)).sort(),
    ignoredRoles: list(o["ignored-roles"]) ?? DEFAULT_IGNORED_ROLES,
  };
}

/** `on.skip-if-check-failing:` (`true` or an empty value gates on every check of the default branch). */
export function skipIfCheckFailingConfig(raw: unknown): SkipIfCheckFailing | undefined {
  if (raw === undefined || raw === false) return undefined;
  const o = objectOf(raw);
  return {
    include: list(o.include) ?? [],
    exclude: list(o.exclude) ?? [],
    branch: typeof o.branch === "string" && o.branch !== "" ? o.branch : undefined,
    allowPending: o["allow-pending"] === true,
  };
}

/** The "Check user rate limit" step (its output `rate_limit_ok` gates `activated`). */
export function rateLimitStep(ctx: JobCtx, rl: RateLimit): StepPlan {
  const env: Record<string, YValue> = {
    GH_AW_RATE_LIMIT_MAX: dq(String(rl.max)),
    GH_AW_RATE_LIMIT_WINDOW: dq(String(rl.window)),
  };
  if (rl.events.length > 0) env.GH_AW_RATE_LIMIT_EVENTS = dq(rl.events.join(","));
  if (rl.ignoredRoles.length > 0) env.GH_AW_RATE_LIMIT_IGNORED_ROLES = dq(rl.ignoredRoles.join(","));
  return scriptStep(ctx, "Check user rate limit", "check_rate_limit", {
    id: "check_rate_limit",
    env,
    token: "${{ secrets.GITHUB_TOKEN }}",
  });
}

/** The "Check skip-if-check-failing" step (output `skip_if_check_failing_ok`); no `env:` when unconfigured. */
export function skipIfCheckFailingStep(ctx: JobCtx, cfg: SkipIfCheckFailing): StepPlan {
  const env: Record<string, YValue> = {};
  if (cfg.include.length > 0) env.GH_AW_SKIP_CHECK_INCLUDE = dq(JSON.stringify(cfg.include));
  if (cfg.exclude.length > 0) env.GH_AW_SKIP_CHECK_EXCLUDE = dq(JSON.stringify(cfg.exclude));
  if (cfg.branch) env.GH_AW_SKIP_BRANCH = dq(cfg.branch);
  if (cfg.allowPending) env.GH_AW_SKIP_CHECK_ALLOW_PENDING = dq("true");
  return scriptStep(ctx, "Check skip-if-check-failing", "check_skip_if_check_failing", {
    id: "check_skip_if_check_failing",
    env: Object.keys(env).length > 0 ? env : undefined,
  });
}

/** The names the Copilot coding agent acts under; any of them in `skip-bots` stands for all (gh-aw's aliases). */
const COPILOT_BOT_NAMES = ["copilot-swe-agent", "Copilot", "copilot", "@app/copilot-swe-agent"];

/** `on.skip-roles` / `on.skip-bots`: a name or a list (undefined when absent or empty). */
export function skipListOf(raw: unknown): string[] | undefined {
  const names = list(raw)?.filter((n) => n !== "");
  return names && names.length > 0 ? names : undefined;
}

/** The bots of `skip-bots`, a Copilot name expanded to all of Copilot's, repeats dropped. */
export function expandBotNames(bots: string[]): string[] {
  const expanded = bots.flatMap((b) => COPILOT_BOT_NAMES.includes(b) ? COPILOT_BOT_NAMES : [b]);
  return [...new Set(expanded)];
}

/** "Check skip-roles" (output `skip_roles_ok`): skips the run for an actor holding one of the roles. */
export function skipRolesStep(ctx: JobCtx, roles: string[]): StepPlan {
  return scriptStep(ctx, "Check skip-roles", "check_skip_roles", {
    id: "check_skip_roles",
    env: { GH_AW_SKIP_ROLES: dq(roles.join(",")), GH_AW_WORKFLOW_NAME: dq(ctx.name) },
    token: "${{ secrets.GITHUB_TOKEN }}",
  });
}

/** "Check skip-bots" (output `skip_bots_ok`): skips the run for an actor among the bots. */
export function skipBotsStep(ctx: JobCtx, bots: string[]): StepPlan {
  return scriptStep(ctx, "Check skip-bots", "check_skip_bots", {
    id: "check_skip_bots",
    env: { GH_AW_SKIP_BOTS: dq(expandBotNames(bots).join(",")), GH_AW_WORKFLOW_NAME: dq(ctx.name) },
  });
}

/** Where each event's payload names the author whose association `skip-author-associations` tests. */
const AUTHOR_OBJECT: Record<string, string> = {
  issues: "issue",
  issue_comment: "comment",
  pull_request: "pull_request",
  pull_request_target: "pull_request",
  pull_request_review: "review",
  pull_request_review_comment: "comment",
  discussion: "discussion",
  discussion_comment: "comment",
};

/**
 * `on.skip-author-associations` (event → associations) as the static guard gh-aw puts on `pre_activation`:
 * per event, in name order, the run goes on unless that event's author holds one of the associations.
 */
export function skipAuthorAssociationsCondition(raw: unknown): string | undefined {
  if (!isObject(raw)) return undefined;
  const clauses = Object.keys(raw).sort().flatMap((event) => {
    const associations = list(raw[event])?.map((a) => a.toUpperCase());
    const object = AUTHOR_OBJECT[event];
    if (!associations?.length || !object) return [];
    return [
      `(!(github.event_name == '${event}') || !contains(fromJSON('${
        JSON.stringify(associations)
      }'), github.event.${object}.author_association))`,
    ];
  });
  return clauses.length > 0 ? clauses.join(" && ") : undefined;
}
