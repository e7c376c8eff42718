/**
 * Inputs of the fuzz targets other than Messages requests (fuzz_messages.ts): SSE events, OAuth parameter
 * lists, GitHub Actions expressions and workflow frontmatter.
 */
import fc from "fast-check";
import type { SseEvent } from "@switchyard/lib/sse.ts";

/** One SSE event with single-line event and id fields and LF-normalised data. */
export const sseEvent: fc.Arbitrary<SseEvent> = fc.record({
  event: fc.option(fc.stringMatching(/^[^\r\n:]{1,12}$/).filter((s) => s.trim() === s && s !== ""), {
    nil: undefined,
  }),
  data: fc.string({ unit: "grapheme", maxLength: 60 }),
  id: fc.option(fc.stringMatching(/^[a-zA-Z0-9_-]{1,10}$/), { nil: undefined }),
}).map((e) => {
  const event: SseEvent = { data: e.data.replace(/\r\n?/g, "\n") };
  if (e.event !== undefined) event.event = e.event;
  if (e.id !== undefined) event.id = e.id;
  return event;
});

const oauthValue = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: "grapheme", maxLength: 30 }),
  fc.constantFrom(
    "",
    " ",
    "%",
    "\u0000",
    "a".repeat(5000),
    "http://127.0.0.1:9/cb",
    "openid",
    "S256",
    "plain",
    "code",
  ),
);
/** The OAuth and OIDC parameter names the endpoints read. */
export const OAUTH_KEYS = [
  "client_id",
  "redirect_uri",
  "response_type",
  "scope",
  "state",
  "nonce",
  "code_challenge",
  "code_challenge_method",
  "prompt",
  "max_age",
  "grant_type",
  "code",
  "code_verifier",
  "refresh_token",
  "client_secret",
  "token",
  "token_type_hint",
  "resource",
  "id_token_hint",
  "request",
  "request_uri",
];
/** A list of parameters: known names and random ones, with odd values. */
export const oauthParams = fc.array(
  fc.tuple(fc.oneof(fc.constantFrom(...OAUTH_KEYS), fc.string({ maxLength: 10 })), oauthValue),
  {
    maxLength: 10,
  },
);

/** A GitHub Actions expression made of real and broken tokens. */
export const expression = fc.array(
  fc.constantFrom(
    "github.event.issue.title",
    "needs.activation.outputs.text",
    "steps.x.outputs.y",
    "secrets.TOKEN",
    "inputs.name",
    "env.X",
    "&&",
    "||",
    "!",
    "==",
    "(",
    ")",
    "'str'",
    "'unterminated",
    "42",
    "contains(",
    "format('{0}', ",
    ",",
    "fromJSON(",
    "*",
    "[0]",
    ".",
    "${{",
    "}}",
  ),
  { maxLength: 8 },
).map((parts) => parts.join(" "));

const FRONTMATTER_KEYS = [
  "permissions",
  "engine",
  "tools",
  "safe-outputs",
  "network",
  "timeout-minutes",
  "imports",
  "if",
  "runs-on",
  "concurrency",
  "env",
  "steps",
  "mcp-servers",
  "strict",
  "roles",
];

const yamlScalar = fc.oneof(
  fc.string({ maxLength: 20 }).map((s) => JSON.stringify(s)),
  fc.integer().map(String),
  fc.constantFrom(
    "true",
    "null",
    "~",
    "[]",
    "{}",
    "*alias",
    "&anchor x",
    "!!binary x",
    "'",
    '"',
    "- a",
    "{a: [b",
  ),
  expression.map((e) => JSON.stringify(`\${{ ${e} }}`)),
);
/** Frontmatter lines: known and random keys with scalars, lists, maps, anchors and expressions. */
export const frontmatter = fc.uniqueArray(
  fc.tuple(
    fc.oneof(fc.constantFrom(...FRONTMATTER_KEYS), fc.string({ maxLength: 12 }).filter((k) => k !== "on")),
    fc.oneof(
      yamlScalar,
      fc.array(yamlScalar, { maxLength: 3 }).map((items) => `\n${items.map((i) => `  - ${i}`).join("\n")}`),
      fc.array(fc.tuple(fc.stringMatching(/^[a-z-]{1,10}$/), yamlScalar), { maxLength: 3 })
        .map((pairs) => `\n${pairs.map(([k, v]) => `  ${k}: ${v}`).join("\n")}`),
    ),
  ),
  { maxLength: 6, selector: ([key]) => key },
).map((pairs) => pairs.map(([k, v]) => `${/^[\w-]+$/.test(k) ? k : JSON.stringify(k)}: ${v}`).join("\n"));
