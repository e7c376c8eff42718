/**
 * The job conditions of a decentralized `slash_command` and of a `label_command` listening on its own
 * `labeled` triggers, written as gh-aw v0.76 writes them: a command runs only when the comment or body
 * starts with it on one of the events it was narrowed to (`events:`), a label command only when the
 * triggering label is one of its names; every other event passes through.
 */

/** A command event identifier (gh-aw's names: `pull_request_comment` is an `issue_comment` on a PR). */
export type CommandEventId =
  | "issues"
  | "issue_comment"
  | "pull_request_comment"
  | "pull_request"
  | "pull_request_review_comment"
  | "discussion"
  | "discussion_comment";

/** Every command event identifier, in gh-aw's order (the default when `events:` is absent or `*`). */
export const COMMAND_EVENT_IDS: CommandEventId[] = [
  "issues",
  "issue_comment",
  "pull_request_comment",
  "pull_request",
  "pull_request_review_comment",
  "discussion",
  "discussion_comment",
];

/** The GitHub event an identifier arrives as. */
export function githubEventOf(id: CommandEventId): string {
  return id === "pull_request_comment" ? "issue_comment" : id;
}

/** The payload field holding the text a command is looked for in. */
const BODY: Record<CommandEventId, string> = {
  issues: "github.event.issue.body",
  issue_comment: "github.event.comment.body",
  pull_request_comment: "github.event.comment.body",
  pull_request: "github.event.pull_request.body",
  pull_request_review_comment: "github.event.comment.body",
  discussion: "github.event.discussion.body",
  discussion_comment: "github.event.comment.body",
};

/** The order gh-aw lists the per-event checks in (review comments before PR bodies). */
const CHECK_ORDER: CommandEventId[] = [
  "issues",
  "issue_comment",
  "pull_request_comment",
  "pull_request_review_comment",
  "pull_request",
  "discussion",
  "discussion_comment",
];

const isEvent = (e: string) => `github.event_name == '${e}'`;

/** `(a || b)` for several terms, the term itself for one. */
function anyOf(terms: string[]): string {
  return terms.length === 1 ? terms[0] : `(${terms.join(" || ")})`;
}

/**
 * `!(a)`, or for several terms `(!(a)) && (!(b))` (how gh-aw v0.76 negates a disjunction) or, `whole`,
 * `!(a || b)` (v0.87).
 */
function noneOf(terms: string[], whole = false): string {
  if (terms.length === 1) return `!(${terms[0]})`;
  return whole ? `!(${terms.join(" || ")})` : terms.map((t) => `(!(${t}))`).join(" && ");
}

/**
 * The text starts with `/name` as a word (or `/prefix` for a `prefix*` wildcard name). The `'/name⏎'`
 * literal holds a real newline (expressions have no escapes); the job's `if:` is then double-quoted.
 */
function startsWithCommand(names: string[], body: string): string {
  const checks = names.flatMap((n) =>
    n.length > 1 && n.endsWith("*")
      ? [`startsWith(${body}, '/${n.slice(0, -1)}')`]
      : [`startsWith(${body}, '/${n} ')`, `startsWith(${body}, '/${n}\n')`, `${body} == '/${n}'`]
  );
  return `(${checks.join(" || ")})`;
}

/** One event's check: the event, the command at the start of its text, and for comments issue vs PR. */
function eventCheck(names: string[], id: CommandEventId): string {
  const check = `${isEvent(githubEventOf(id))} && ${startsWithCommand(names, BODY[id])}`;
  if (id === "issue_comment") return `${check} && github.event.issue.pull_request == null`;
  if (id === "pull_request_comment") return `${check} && github.event.issue.pull_request != null`;
  return check;
}

/**
 * The condition of a decentralized slash command narrowed to `ids`. With other triggers in `on:`
 * (`hasOtherEvents`), events the command does not listen on pass unconditionally.
 */
export function slashCommandCondition(
  names: string[],
  ids: CommandEventId[],
  hasOtherEvents: boolean,
  /** Negate the other events' disjunction as a whole (the target's `negateDisjunctionWhole`). */
  wholeNegation = false,
): string {
  const checks = CHECK_ORDER.filter((id) => ids.includes(id)).map((id) => eventCheck(names, id));
  const command = checks.join(" || ");
  if (!hasOtherEvents) return command;
  const events = [...new Set(ids.map(githubEventOf))].map(isEvent);
  return `${anyOf(events)} && ${checks.length === 1 ? command : `(${command})`} || ${
    noneOf(events, wholeNegation)
  }`;
}

/**
 * The pre-activation guard gh-aw adds to a command listening on comments: when every required role maps to
 * an author association, a comment by anyone else (not an owner, member or collaborator) starts no job.
 */
export function commentAuthorGuard(roles: string[] | undefined, ids: CommandEventId[]): string | undefined {
  if (!roles || roles.length === 0 || !roles.every((r) => ["admin", "maintainer", "write"].includes(r))) {
    return undefined;
  }
  const events = [
    ...(ids.includes("issue_comment") || ids.includes("pull_request_comment") ? ["issue_comment"] : []),
    ...(ids.includes("pull_request_review_comment") ? ["pull_request_review_comment"] : []),
  ];
  if (events.length === 0) return undefined;
  return `${events.map((e) => `github.event_name != '${e}'`).join(" && ")} || ` +
    `contains(fromJSON('["OWNER","MEMBER","COLLABORATOR"]'), github.event.comment.author_association)`;
}

/** The condition of a label command on its own `labeled` triggers: the label is one of `names`. */
export function labelCommandCondition(names: string[], events: string[], wholeNegation = false): string {
  const isLabel = names.map((n) => `github.event.label.name == '${n}'`);
  const on = events.map(isEvent);
  return `${anyOf(on)} && ${anyOf(isLabel)} || ${noneOf(on, wholeNegation)}`;
}
