/**
 * What gh-aw derives from the `checkout:` entries beyond the `actions/checkout` step itself: which entry is the
 * workspace's own checkout, which replaces the workspace root with another repository, and the "Fetch
 * additional refs" step that fetches an entry's `fetch:` refs after it is checked out (agent and
 * safe_outputs jobs alike).
 */
import type { StepPlan } from "../types.ts";
import { lit, plain } from "../../yaml/writer.ts";

type Entry = Record<string, unknown>;

const pathOf = (c: Entry): string => {
  const p = typeof c.path === "string" ? c.path.trim() : "";
  return p === "." ? "" : p;
};
const repositoryOf = (c: Entry): string => typeof c.repository === "string" ? c.repository : "";

/** An entry for the workflow's own repository at the workspace root (it replaces gh-aw's default checkout). */
export function isDefaultCheckout(c: Entry): boolean {
  return repositoryOf(c) === "" && pathOf(c) === "";
}

/** An entry checking another repository out at the workspace root (the actions folder must be restored). */
export function isExternalRootCheckout(c: Entry): boolean {
  return repositoryOf(c) !== "" && pathOf(c) === "";
}

/** The first entry for `repository` (a cross-repository target of the safe outputs). */
export function checkoutFor(entries: Entry[], repository: string): Entry | undefined {
  return entries.find((c) => repositoryOf(c) === repository);
}

/** An entry's `fetch:` refs (one or a list), blanks and repeats dropped. */
export function fetchRefsOf(c: Entry): string[] {
  const raw = c.fetch === undefined || c.fetch === null ? [] : Array.isArray(c.fetch) ? c.fetch : [c.fetch];
  return [...new Set(raw.map((r) => String(r).trim()).filter((r) => r !== ""))];
}

/** The refspec of a `fetch:` pattern: all branches, gh-aw's open pull requests shorthand, or a branch glob. */
function fetchRefspec(ref: string): string {
  if (ref === "*") return "+refs/heads/*:refs/remotes/origin/*";
  if (ref === "refs/pulls/open/*") return "+refs/pull/*/head:refs/remotes/origin/pull/*/head";
  const branch = ref.startsWith("refs/heads/") ? ref.slice("refs/heads/".length) : ref;
  if (branch.startsWith("refs/")) return `+${branch}:${branch}`;
  return `+refs/heads/${branch}:refs/remotes/origin/${branch}`;
}

/** The token the agent fetches with when the entry names none (as gh-aw's GitHub MCP server reads). */
export const DEFAULT_FETCH_TOKEN =
  "${{ secrets.GH_AW_GITHUB_MCP_SERVER_TOKEN || secrets.GH_AW_GITHUB_TOKEN || secrets.GITHUB_TOKEN }}";

/**
 * "Fetch additional refs" (`for <repository>` of another repository): a `git fetch` authenticated through
 * an extra header, so no credential is left in the checkout. A shallow checkout stays shallow.
 */
export function fetchRefsStep(o: {
  refs: string[];
  token: string;
  repository?: string;
  /** The checkout's sub-directory (`git -C`), when not the workspace root. */
  path?: string;
  fetchDepth?: unknown;
  if?: string;
}): StepPlan {
  const depth = typeof o.fetchDepth === "number" ? o.fetchDepth : 1;
  const step: StepPlan = {
    name: o.repository ? `Fetch additional refs for ${o.repository}` : "Fetch additional refs",
  };
  if (o.if) step.if = plain(o.if);
  step.env = { GH_AW_FETCH_TOKEN: plain(o.token) };
  step.run = lit(
    'header=$(printf "x-access-token:%s" "${GH_AW_FETCH_TOKEN}" | base64 -w 0)\n' +
      `git ${
        o.path ? `-C "${o.path}" ` : ""
      }-c "http.extraheader=Authorization: Basic \${header}" fetch origin${
        depth > 0 ? ` --depth=${depth}` : ""
      } ${o.refs.map((r) => `'${fetchRefspec(r)}'`).join(" ")}\n`,
  );
  return step;
}
