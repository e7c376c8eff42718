/**
 * The checkout and git set-up the `safe_outputs` job needs before a code-pushing safe output
 * (`create-pull-request`, `push-to-pull-request-branch`) applies the agent's patch: the repository the PR
 * targets (this one, or `target-repo`), at its base branch, with a token that may push there.
 */
import type { StepPlan } from "../types.ts";
import { artifactName, type JobCtx, scriptStep, targetOf, WRITE_TOKEN } from "../steps.ts";
import { dq, lit, plain, type YValue } from "../../yaml/writer.ts";
import type { SafeOutputsPlan } from "../safe_outputs/plan.ts";
import { SAFE_OUTPUT_TYPES } from "../safe_outputs/types/registry.ts";
import { snakeCase } from "../safe_outputs/types/contract.ts";
import { checkoutFor, fetchRefsOf, fetchRefsStep, isDefaultCheckout } from "./checkout_refs.ts";
import { objectOf } from "../../source/values.ts";

type Entry = Record<string, unknown>;

/** Safe-output types that push code (they need a checkout and git credentials in `safe_outputs`). */
export function codePushTypes(so: SafeOutputsPlan): string[] {
  return SAFE_OUTPUT_TYPES.filter((type) => type.pushesCode && so.types.includes(type.key))
    .map((type) => snakeCase(type.key));
}

/** The token the job writes with: `safe-outputs.github-token` when the author sets one, else the default. */
export function writeTokenOf(so: SafeOutputsPlan): string {
  const token = so.global["github-token"];
  return typeof token === "string" && token !== "" ? token : WRITE_TOKEN;
}

/** The code-pushing types' configuration, create-pull-request's first (it decides before the push). */
function pushConfigs(so: SafeOutputsPlan): Entry[] {
  return ["create-pull-request", "push-to-pull-request-branch"].filter((t) => so.types.includes(t))
    .map((t) => objectOf(so.configs[t]) as Entry);
}

const firstString = (entries: Entry[], key: string): string | undefined =>
  entries.map((c) => c[key]).find((v): v is string => typeof v === "string" && v !== "");

/** The PR types' own `github-token`, which gh-aw also hands the handler as `GITHUB_TOKEN`. */
export function pushTokenOf(so: SafeOutputsPlan): string | undefined {
  return firstString(pushConfigs(so), "github-token");
}

/**
 * The token of the empty commit that triggers CI after a push: the PR types' own
 * `github-token-for-extra-empty-commit` (create-pull-request's first; `app` is the safe-outputs app token),
 * else the repository's `GH_AW_CI_TRIGGER_TOKEN` secret.
 */
export function ciTriggerTokenOf(so: SafeOutputsPlan): string {
  const token = firstString(pushConfigs(so), "github-token-for-extra-empty-commit");
  if (token === "app") return "${{ steps.safe-outputs-app-token.outputs.token || '' }}";
  return token ?? "${{ secrets.GH_AW_CI_TRIGGER_TOKEN }}";
}

/** The repository the PR types push to when it is another one (`target-repo`; not the `*` wildcard). */
function targetRepoOf(so: SafeOutputsPlan): string | undefined {
  const repo = firstString(pushConfigs(so), "target-repo");
  return repo === "*" ? undefined : repo;
}

const BASE = "(!cancelled()) && needs.agent.result != 'skipped'";
const COMMENT =
  " && (github.event_name == 'issue_comment' || github.event_name == 'pull_request_review_comment')";
const NOT_COMMENT =
  " && github.event_name != 'issue_comment' && github.event_name != 'pull_request_review_comment'";
/** The base branch to check out; for another repository without `github.ref_name` (a branch of this one). */
const BASE_REF =
  "${{ steps.extract-base-branch.outputs.base-branch || github.base_ref || github.event.pull_request.base.ref || github.ref_name || github.event.repository.default_branch }}";
const CROSS_REPO_BASE_REF =
  "${{ steps.extract-base-branch.outputs.base-branch || github.base_ref || github.event.pull_request.base.ref || github.event.repository.default_branch }}";

/** Checkout, git credentials and fetched refs for the code-pushing safe outputs (none without them). */
export function codePushSteps(ctx: JobCtx, so: SafeOutputsPlan, checkouts: Entry[]): StepPlan[] {
  const types = codePushTypes(so);
  if (types.length === 0) return [];
  const token = pushTokenOf(so) ?? writeTokenOf(so);
  const target = targetRepoOf(so);
  const targetEntry = target ? checkoutFor(checkouts, target) : undefined;
  // The depth of the checkout the agent worked in: the target's entry, else the workflow's own one.
  const depthOf = (c: Entry | undefined) =>
    typeof c?.["fetch-depth"] === "number" ? c["fetch-depth"] : undefined;
  const fetchDepth = depthOf(targetEntry) ?? depthOf(checkouts.find(isDefaultCheckout)) ?? 1;
  const any = (suffix = "") => {
    const alternatives = types.map((t) => `${BASE} && contains(needs.agent.outputs.output_types, '${t}')`);
    // gh-aw ANDs the event test onto the whole disjunction, parenthesised once there are several types.
    const either = alternatives.join(" || ");
    return suffix && alternatives.length > 1 ? `(${either})${suffix}` : `${either}${suffix}`;
  };
  const checkout = (name: string, cond: string, fields: Record<string, YValue>): StepPlan => ({
    name,
    if: plain(cond),
    uses: plain(ctx.refs.checkout),
    with: { ...fields, token: plain(token), "persist-credentials": false, "fetch-depth": fetchDepth },
  });
  const download: StepPlan = {
    name: "Download patch artifact",
    "continue-on-error": true,
    uses: plain(ctx.refs.download),
    with: { name: artifactName(ctx, "agent", "activation"), path: "/tmp/gh-aw/" },
  };
  // A release that checks out the triggering ref and configures git with its runtime script (v0.87).
  if (!target && targetOf(ctx).jobs.safeOutputs.checkoutTriggeringRef) {
    return [
      download,
      {
        name: "Checkout repository",
        if: plain(any()),
        uses: plain(ctx.refs.checkout),
        with: { "persist-credentials": true, token: plain(token) },
      },
      {
        name: "Configure Git credentials",
        if: plain(any()),
        env: {
          GITHUB_REPOSITORY: plain("${{ github.repository }}"),
          GITHUB_SERVER_URL: plain("${{ github.server_url }}"),
          GIT_TOKEN: plain(token),
        },
        run: plain('bash "${RUNNER_TEMP}/gh-aw/actions/configure_git_credentials.sh"'),
      },
    ];
  }
  const steps: StepPlan[] = [
    download,
    scriptStep(ctx, "Extract base branch from agent output", "extract_base_branch_from_agent_output", {
      id: "extract-base-branch",
      if: plain("steps.download-agent-output.outcome == 'success'"),
    }),
  ];
  if (target) {
    // Another repository's branch is chosen explicitly; comment events need no trusted-branch detour.
    steps.push(
      checkout("Checkout repository", any(), { repository: target, ref: plain(CROSS_REPO_BASE_REF) }),
    );
  } else {
    steps.push(
      checkout("Checkout repository (trusted default branch for comment events)", any(COMMENT), {
        ref: plain("${{ github.event.repository.default_branch }}"),
      }),
      checkout("Checkout repository", any(NOT_COMMENT), { ref: plain(BASE_REF) }),
    );
  }
  steps.push(gitCredentialsStep(any(), target ? dq(target) : plain("${{ github.repository }}"), token));
  const refs = targetEntry ? fetchRefsOf(targetEntry) : [];
  if (target && refs.length > 0) {
    steps.push(fetchRefsStep({ refs, token, repository: target, fetchDepth, if: any() }));
  }
  return steps;
}

/** "Configure Git credentials": the pushing identity and a remote carrying the push token. */
function gitCredentialsStep(cond: string, repoName: YValue, token: string): StepPlan {
  return {
    name: "Configure Git credentials",
    if: plain(cond),
    env: { REPO_NAME: repoName, SERVER_URL: plain("${{ github.server_url }}"), GIT_TOKEN: plain(token) },
    run: lit(
      'git config --global user.email "github-actions[bot]@users.noreply.github.com"\n' +
        'git config --global user.name "github-actions[bot]"\ngit config --global am.keepcr true\n' +
        "# Re-authenticate git with GitHub token\n" + 'SERVER_URL_STRIPPED="${SERVER_URL#https://}"\n' +
        'git remote set-url origin "https://x-access-token:${GIT_TOKEN}@${SERVER_URL_STRIPPED}/${REPO_NAME}.git"\n' +
        'echo "Git configured with standard GitHub Actions identity"\n',
    ),
  };
}
