/**
 * Stage 2 — validate: our own zod schema of the frontmatter. Covers every top-level key of the spec's
 * table and of gh-aw's schema; unknown keys (top level and in the main nested maps) are rejected with a
 * did-you-mean suggestion. Values are checked for the shapes the compiler relies on.
 */
import { z } from "zod";
import { ruleCovers, valueTypeProblems } from "./value_types.ts";
import { workflowSyntaxProblems } from "./workflow_syntax.ts";
import { modelsSchema, providersSchema } from "./model_catalog.ts";
import { sandboxSchema } from "./sandbox.ts";
import { safeOutputsGlobalShape, splitSafeOutputs } from "./safe_outputs_section.ts";
import type { Diagnostic } from "../api.ts";
import type { ParsedFile } from "./parse.ts";
import { diagnostic } from "./diagnostics.ts";
import { readOn } from "./on_section.ts";
import {
  ENGINE_IDS,
  ENGINE_KEYS,
  newerKeyRefusals,
  ON_KEYS,
  SAFE_OUTPUT_KEYS,
  TOOL_KEYS,
  TOP_LEVEL_KEYS,
} from "./frontmatter_keys.ts";
import { isObject, mappingOf, objectOf } from "./values.ts";
import { V0_76_1 } from "../targets/v0_76_1.ts";

/** The refusals of the v0.76.1 target (the default when no target is given). */
const V0_76_1_REFUSALS = newerKeyRefusals(V0_76_1);

export { ENGINE_IDS, ENGINE_KEYS, ON_KEYS, SAFE_OUTPUT_KEYS, TOOL_KEYS, TOP_LEVEL_KEYS };

const expr = z.string().regex(/^\$\{\{.*\}\}$/s);
const intOrExpr = z.union([z.number().int(), expr]);
const permissionLevel = z.enum(["read", "write", "none"]);
const stringList = z.array(z.string());

/** A mapping whose values the planner reads key by key. */
const mapping = z.record(z.string(), z.unknown());
/** A value the planner passes through or narrows itself (its shape rules live in value_types.ts). */
const anyValue = z.unknown();
/** A mapping read key by key (its shape rules live in value_types.ts); anything else reads as an empty one. */
const openMapping = z.unknown().transform((v) => mappingOf(v));
/** A value read only when it is text (its shape rules live in value_types.ts). */
const text = z.unknown().transform((v) => (typeof v === "string" ? v : undefined));
/** A list of steps (each a mapping; workflow_syntax.ts words their rules); an empty value (null) reads as none. */
const stepList = z.array(mapping).nullable().transform((v) => v ?? []);
/**
 * A value checked against `shape` but kept as written (key order and unknown keys too, as the lock copies it),
 * typed as the shape reads it. For shapes without transforms.
 */
function asWritten<T extends z.ZodType>(shape: T) {
  return z.unknown().superRefine((value, ctx) => {
    const res = shape.safeParse(value);
    if (!res.success) { for (const issue of res.error.issues) ctx.addIssue({ ...issue }); }
  }).transform((value) => value as z.output<T>);
}
/** A count written as a number or as digits; anything else (an expression) reads as unset. */
const count = z.unknown().transform((v) =>
  typeof v === "number" ? v : typeof v === "string" && /^\d+$/.test(v) ? Number(v) : undefined
);

/** The window, events and exempt roles of `user-rate-limit:` (and the legacy `rate-limit:`). */
const rateLimitWindow = {
  window: z.number().int().optional(),
  events: stringList.optional(),
  "ignored-roles": stringList.optional(),
};

/** Two or more variants of an experiment. */
const variants = z.array(z.string()).min(2, { error: "an experiment needs two or more variants" });

/**
 * `experiments:` — each experiment always `{variants, …}` (the bare-list form read as its variants); the
 * `storage:` backend stays a name.
 */
const experimentsShape = z.object({ storage: z.enum(["cache", "repo"]).optional() }).catchall(
  z.union([
    variants.transform((list) => ({ variants: list })),
    z.object({ variants }).passthrough(),
  ]),
);

/** A value `actions/checkout` takes as an input (value_types.ts words the rule for authors). */
const checkoutScalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const textOrTexts = z.union([z.string(), stringList]);

/** One `checkout:` entry, kept as written (its inputs are copied in the order written). */
const checkoutEntry = asWritten(
  z.object({
    repository: checkoutScalar.optional(),
    ref: checkoutScalar.optional(),
    path: checkoutScalar.optional(),
    token: checkoutScalar.optional(),
    "github-token": checkoutScalar.optional(),
    "fetch-depth": checkoutScalar.optional(),
    submodules: checkoutScalar.optional(),
    lfs: z.boolean().optional(),
    "sparse-checkout": textOrTexts.optional(),
    fetch: textOrTexts.optional(),
    current: z.boolean().optional(),
    wiki: z.boolean().optional(),
    "force-clean-git-credentials": z.boolean().optional(),
    "github-app": mapping.optional(),
  }).passthrough(),
);

/** A GitHub App whose token a job mints (gh-aw's `github_app`). */
const githubAppShape = z.object({
  "app-id": z.string().optional(),
  "client-id": z.string().optional(),
  "private-key": z.string().optional(),
  "ignore-if-missing": z.boolean().optional(),
  owner: z.string().optional(),
  repositories: stringList.optional(),
  permissions: z.record(z.string(), z.string()).optional(),
}).strict();

/** An AI-credit limit (later releases): a number, or text such as `50k` (plan/jobs/ai_credits.ts reads it). */
const creditLimit = z.union([z.number(), z.string()], {
  error: "must be a number of credits, such as 500 or 50k",
});

/** One `runtimes:` entry: the version (and setup action) of a language runtime. */
const runtimeShape = z.object({
  version: z.union([z.string(), z.number()]).optional(),
  "action-repo": z.string().optional(),
  "action-version": z.string().optional(),
  if: z.string().optional(),
  cooldown: z.boolean().optional(),
  "run-install-scripts": z.boolean().optional(),
}).strict();

/** One `cache:` entry: the inputs of an `actions/cache` step (value_types.ts words the rules for authors). */
const cacheEntry = z.object({
  key: z.string().optional(),
  path: textOrTexts.optional(),
  "restore-keys": textOrTexts.optional(),
}).catchall(z.union([z.string(), z.number(), z.boolean(), z.null(), stringList]));

/** OTLP headers: a mapping of texts, or one `k=v,…` text. */
const otlpHeaders = z.union([z.record(z.string(), z.string()), z.string()]);
/** One OTLP endpoint written as a mapping. */
const otlpEndpoint = z.object({ url: z.string(), headers: otlpHeaders.optional() }).strict();

/** `observability.otlp:` (merge.ts reads its endpoints; the other settings pass through). */
const otlpShape = z.object({
  endpoint: z.union([z.string(), otlpEndpoint, z.array(otlpEndpoint)]).optional(),
  headers: otlpHeaders.optional(),
}).passthrough();

/** A value an MCP server's command line or environment takes. */
const scalar = z.union([z.string(), z.number(), z.boolean()]);

/**
 * One MCP server: gh-aw's stdio (`command`/`container`, `args`, `env`, …) and HTTP (`url`, `headers`) forms in
 * one shape, kept as written (plan/mcp/ renders it); keys gh-aw's schema does not list pass through.
 */
const mcpServer = asWritten(
  z.object({
    type: z.string().optional(),
    registry: z.string().optional(),
    command: z.string().optional(),
    container: z.string().optional(),
    version: z.union([z.string(), z.number()]).optional(),
    args: z.array(scalar).optional(),
    entrypoint: z.string().optional(),
    entrypointArgs: z.array(scalar).optional(),
    mounts: stringList.optional(),
    env: z.record(z.string(), scalar).optional(),
    network: mapping.optional(),
    allowed: stringList.optional(),
    "proxy-args": z.array(scalar).optional(),
    url: z.string().optional(),
    headers: z.record(z.string(), scalar).optional(),
  }).passthrough(),
);
/** One `mcp-scripts:` tool: its inputs and the script (`script`, `run`, `py` or `go`) that answers it. */
const mcpScript = asWritten(
  z.object({
    description: z.string().optional(),
    inputs: z.record(z.string(), mapping).optional(),
    script: z.string().optional(),
    run: z.string().optional(),
    py: z.string().optional(),
    go: z.string().optional(),
    env: z.record(z.string(), scalar).optional(),
    timeout: z.number().int().optional(),
  }).passthrough(),
);
/** Named MCP servers (top level, or under `tools:`). */
const mcpServers = z.record(z.string(), mcpServer);

/** A tool switched on (`true`, or a bare key), off (`false`) or configured (a mapping read by its planner). */
const toolSetting = z.union([z.null(), z.boolean(), mapping]);
/** A memory tool: a switch, one store's settings or a list of stores. */
const memorySetting = z.union([z.null(), z.boolean(), mapping, z.array(mapping)]);

/**
 * `tools:` as gh-aw's schema has each tool's forms (unknown tool names are reported with a did-you-mean
 * before this runs); kept as written, the merge with imports and the planners read it key by key.
 */
const toolsShape = z.object({
  github: z.union([z.null(), z.boolean(), z.string(), mapping]).optional(),
  bash: z.union([z.null(), z.boolean(), stringList]).optional(),
  "web-fetch": toolSetting.optional(),
  "web-search": toolSetting.optional(),
  grep: toolSetting.optional(),
  edit: toolSetting.optional(),
  playwright: toolSetting.optional(),
  "agentic-workflows": toolSetting.optional(),
  "cache-memory": memorySetting.optional(),
  "repo-memory": memorySetting.optional(),
  "comment-memory": toolSetting.optional(),
  timeout: intOrExpr.optional(),
  "startup-timeout": intOrExpr.optional(),
  "cli-proxy": z.boolean().optional(),
  serena: z.union([z.null(), z.boolean(), stringList, mapping]).optional(),
  "mcp-servers": mcpServers.optional(),
}).passthrough();

/** One input an importable workflow declares (`import-schema:`): a value, or an object of values. */
const importInput = z.object({
  description: z.string().optional(),
  required: z.boolean().optional(),
  default: z.unknown().optional(),
  // A type name (string, number, boolean, choice, array, object; gh-aw also reads `integer`).
  type: z.string().optional(),
  options: stringList.optional(),
  items: mapping.optional(),
  properties: z.record(z.string(), mapping).optional(),
}).passthrough();

/** A job container or service (its GitHub syntax, with messages, is checked in workflow_syntax.ts). */
const containerShape = z.object({
  image: z.string(),
  credentials: mapping.optional(),
  env: mapping.optional(),
  ports: z.array(z.union([z.string(), z.number()])).optional(),
  volumes: stringList.optional(),
  options: z.string().optional(),
}).passthrough();

/**
 * The zod schema of the frontmatter: every top-level key of {@link TOP_LEVEL_KEYS}, typed as the planner
 * reads it. Keys the planner only passes through, or narrows where it reads them, are `unknown`; unknown
 * keys are reported above (with a did-you-mean) and dropped from the typed model.
 */
export const frontmatterSchema = z.object({
  name: z.string().optional(),
  description: z.string().optional(),
  emoji: z.string().optional(),
  source: z.string().optional(),
  "tracker-id": z.string().optional(),
  "run-name": text.optional(),
  // A short text read into the trigger mapping it stands for; a mapping kept in the author's order.
  on: z.union([z.string(), mapping]).transform(readOn),
  if: z.string().optional(),
  env: z.union([z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])), z.string()]).optional(),
  permissions: z.union([
    z.enum(["read-all", "write-all", "read", "write"]),
    z.record(z.string(), permissionLevel),
  ]).optional(),
  engine: z.union([z.string(), z.object({ id: z.string().optional() }).passthrough()]).optional(),
  "timeout-minutes": intOrExpr.optional(),
  "runs-on": z.union([
    z.string(),
    stringList,
    asWritten(z.object({ group: textOrTexts.optional(), labels: textOrTexts.optional() }).strict()),
  ]).optional(),
  "runs-on-slim": z.string().optional(),
  imports: z.union([z.array(z.union([z.string(), mapping])), mapping]).optional(),
  "inlined-imports": z.boolean().optional(),
  strict: z.boolean().optional(),
  network: z.union([
    z.literal("defaults"),
    z.object({
      allowed: stringList.optional(),
      blocked: stringList.optional(),
    }).passthrough(),
  ]).optional(),
  steps: z.array(mapping).optional(),
  "pre-steps": stepList.optional(),
  "pre-agent-steps": stepList.optional(),
  "post-steps": stepList.optional(),
  jobs: z.record(z.string(), mapping).optional(),
  sandbox: sandboxSchema.optional(),
  skills: stringList.optional(),
  plugins: z.array(
    z.union([
      z.string().regex(/^[\w.-]+\/[\w.-]+@\S+$/, { error: "a plugin is owner/repo@ref" }),
      z.object({
        plugin: z.string().regex(/^[\w.-]+\/[\w.-]+(?:@\S+)?$/, { error: "plugin must be owner/repo[@ref]" }),
        "github-token": z.string().optional(),
        token: z.string().optional(),
      }).strict(),
    ]),
  )
    .optional(),
  footer: z.boolean().optional(),
  models: modelsSchema.optional(),
  providers: providersSchema.optional(),
  // Split when loaded: the job's global settings (typed where read) and each type's config.
  "safe-outputs": asWritten(safeOutputsGlobalShape).nullable().transform((v) => splitSafeOutputs(v ?? {}))
    .optional(),
  // Always a mapping in the typed model (absent or null: no tools of its own).
  tools: asWritten(toolsShape).nullable().optional().transform((v) => v ?? {}),
  "mcp-servers": mcpServers.optional(),
  // An empty `mcp-scripts:` (null) reads as a section with no tools, as before.
  "mcp-scripts": z.record(z.string(), mcpScript).nullable().transform((v) => v ?? {}).optional(),
  // An empty `runtimes:` (null) reads as none.
  runtimes: z.record(z.string(), runtimeShape).nullable().transform((v) => v ?? {}).optional(),
  // An empty `experiments:` (null) reads as none, as before.
  experiments: experimentsShape.nullable().transform((v) => v ?? undefined).optional(),
  features: openMapping.optional(),
  // Always a list of entries (one mapping becomes one entry); an empty `cache:` (null) reads as none.
  cache: z.union([cacheEntry, z.array(cacheEntry)]).nullable()
    .transform((v) => v === null ? undefined : Array.isArray(v) ? v : [v])
    .optional(),
  // Always a list of entries (one mapping becomes one entry), or `false` for no checkout at all.
  checkout: z.union([z.literal(false), checkoutEntry, z.array(checkoutEntry)], {
    error: "must be false, a mapping of checkout settings, or a list of them",
  })
    .nullable()
    .transform((v) => v === false ? v : Array.isArray(v) ? v : v === null ? [] : [v])
    .optional(),
  concurrency: asWritten(z.union([
    z.string(),
    z.object({
      group: z.string().optional(),
      "cancel-in-progress": z.boolean().optional(),
      queue: z.enum(["single", "max"]).optional(),
      "job-discriminator": z.string().optional(),
    }).strict(),
  ])).optional(),
  container: asWritten(z.union([z.string(), containerShape])).optional(),
  services: asWritten(z.record(z.string(), containerShape)).optional(),
  environment: asWritten(
    z.union([z.string(), z.object({ name: z.string(), url: z.string().optional() }).strict()], {
      error: "must be an environment name or a mapping {name, url}",
    }),
  ).optional(),
  secrets: z.record(z.string(), z.union([z.string(), z.object({ value: z.string() }).strict()])).optional(),
  "secret-masking": z.object({ steps: z.array(mapping).optional() }).strict().optional(),
  "github-app": asWritten(githubAppShape).optional(),
  // A count of tokens (digits read as the number) or an expression, as gh-aw's schema has it.
  "max-effective-tokens": z.union([
    z.number().int().refine((n) => n !== 0, { error: "must be a whole number of tokens other than 0" }),
    z.string().regex(/^(?:[1-9][0-9]*|\$\{\{.*\}\})$/s, {
      error: "must be a whole number of tokens or a ${{ }} expression",
    }).transform((v) => /^\d+$/.test(v) ? Number(v) : v),
  ], { error: "must be a whole number of tokens or a ${{ }} expression" }).optional(),
  "max-runs": count.optional(),
  // Later gh-aw's name for the AWF turn cap (`apiProxy.maxRuns`); `max-runs` is its deprecated alias.
  "max-turns": count.optional(),
  "rate-limit": z.object({
    "max-runs": intOrExpr.optional(),
    max: intOrExpr.optional(),
    ...rateLimitWindow,
  }).strict().optional(),
  "user-rate-limit": z.object({ "max-runs-per-window": intOrExpr, ...rateLimitWindow }).strict().optional(),
  "check-for-updates": z.boolean().optional(),
  "disable-model-invocation": z.boolean().optional(),
  "import-schema": z.record(z.string(), importInput).optional(),
  "inline-sub-agents": z.boolean().optional(),
  labels: stringList.optional(),
  metadata: z.record(z.string(), z.string()).optional(),
  observability: asWritten(z.object({ otlp: otlpShape.optional() }).strict()).optional(),
  private: z.boolean().optional(),
  redirect: z.string().optional(),
  resources: stringList.optional(),
  "run-install-scripts": z.boolean().optional(),
  // Keys of later releases, read only where the target supports them (GhAwTarget.frontmatterKeys).
  model: z.string().optional(),
  "max-ai-credits": creditLimit.optional(),
  "max-daily-ai-credits": creditLimit.optional(),
  /** Variables kept out of the agent's sandbox (AWF `--exclude-env`). */
  "excluded-env": stringList.optional(),
  /** The API proxy's cache-miss limit per turn (AWF `apiProxy.maxCacheMisses`). */
  "max-turn-cache-misses": z.number().int().positive().optional(),
  "safe-inputs": anyValue.optional(),
});

/** The validated frontmatter: what the planner reads. */
export type Frontmatter = z.output<typeof frontmatterSchema>;
/**
 * A shared file's schema (no `on:` required), built once: zod compiles each object schema's parser on its
 * first use, so a copy made per import paid that compile again for every shared file (≈ 80 ms of a cold
 * corpus compile).
 */
const sharedFrontmatterSchema = frontmatterSchema.partial({ on: true });

/** The model of a file that did not validate (or a shared file's missing keys): no triggers, no tools. */
export function emptyFrontmatter(): Frontmatter {
  return { on: { triggers: {} }, tools: {} };
}

/** zod's names of value kinds in plain words. */
const KIND_WORDS: Readonly<Record<string, string>> = {
  object: "a mapping",
  record: "a mapping",
  array: "a list",
  string: "text",
};

/** zod's terse messages ("Invalid input") in plain words naming what was found. */
function plainWords(message: string, value: unknown): string {
  const expected = /^invalid input: expected (\w+), received \w+$/i.exec(message.trim())?.[1];
  if (expected !== undefined) {
    return `expected ${KIND_WORDS[expected] ?? `a ${expected}`}, got ${foundWords(value)}`;
  }
  if (!/^invalid input$/i.test(message.trim())) return message;
  return `${foundWords(value)} is not one of the forms this key accepts`;
}

/** A found value in plain words ("a list", "a mapping", its JSON). */
function foundWords(value: unknown): string {
  return value === null
    ? "null"
    : Array.isArray(value)
    ? "a list"
    : typeof value === "object"
    ? "a mapping"
    : JSON.stringify(value);
}

/**
 * A union none of whose forms fits: when exactly one form has the value's kind (a mapping, a list, text…;
 * not a mismatched kind or literal),
 * that form's own issues, which say what is wrong inside it; otherwise the union's one issue.
 */
function unionBranchIssues(issue: z.core.$ZodIssue): z.core.$ZodIssue[] {
  if (issue.code !== "invalid_union" || issue.errors.length === 0) return [issue];
  const sameKind = issue.errors.filter((branch) =>
    !branch.some((inner) => inner.path.length === 0 && ["invalid_type", "invalid_value"].includes(inner.code))
  );
  if (sameKind.length !== 1) return [issue];
  return sameKind[0].map((inner) => ({ ...inner, path: [...issue.path, ...inner.path] }))
    .flatMap(unionBranchIssues);
}

/** Levenshtein distance. */
export function levenshtein(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
  }
  return d[a.length][b.length];
}

/** The closest candidate within a small edit distance, if any. */
export function didYouMean(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    const dist = levenshtein(word.toLowerCase(), c.toLowerCase());
    if (dist < bestD) {
      bestD = dist;
      best = c;
    }
  }
  return best !== undefined && bestD <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined;
}

function unknownKeys(
  file: ParsedFile,
  obj: unknown,
  path: string[],
  allowed: readonly string[],
  where: string,
  out: Diagnostic[],
  /** Why each newer top-level key is refused (checked at the top level only). */
  refusals: Readonly<Record<string, string>> = V0_76_1_REFUSALS,
): void {
  if (!obj || typeof obj !== "object" || Array.isArray(obj)) return;
  for (const key of Object.keys(obj)) {
    if (allowed.includes(key)) continue;
    const [line, column] = file.locate([...path, key], true);
    const refused = path.length === 0 ? refusals[key] : undefined;
    if (refused !== undefined) {
      out.push(diagnostic("newer-key-unsupported", { file: file.path, line, column }, `"${key}" ${refused}`));
      continue;
    }
    const guess = didYouMean(key, allowed);
    out.push(
      diagnostic(
        "unknown-key",
        { file: file.path, line, column },
        `unknown key "${key}" in ${where}`,
        guess ? `did you mean "${guess}"?` : `allowed keys: ${allowed.slice(0, 12).join(", ")}, …`,
      ),
    );
  }
}

/** A validated frontmatter and what validation found. */
export interface ValidatedFrontmatter {
  /** Errors and warnings, located. */
  diagnostics: Diagnostic[];
  /**
   * The typed model the planner reads. Meaningful only when `diagnostics` holds no error: an invalid
   * document yields the empty model so that nothing downstream reads unvalidated values.
   */
  frontmatter: Frontmatter;
}

/** Validates a parsed file's frontmatter into the typed model. `shared` files (imports) need no `on:`. */
export function validateFrontmatter(
  file: ParsedFile,
  shared: boolean,
  /** Top-level keys the target release supports beyond v0.76.1's (`GhAwTarget.frontmatterKeys`). */
  extraKeys: readonly string[] = [],
  /** Why the target refuses each newer key (`newerKeyRefusals`); default: v0.76.1's. */
  refusals: Readonly<Record<string, string>> = V0_76_1_REFUSALS,
): ValidatedFrontmatter {
  const out: Diagnostic[] = [];
  const data = file.data;
  const topLevelKeys: readonly string[] = extraKeys.length
    ? [...TOP_LEVEL_KEYS, ...extraKeys]
    : TOP_LEVEL_KEYS;
  unknownKeys(
    file,
    data,
    [],
    topLevelKeys,
    "the frontmatter",
    out,
    refusals,
  );
  if (data.on && typeof data.on === "object") unknownKeys(file, data.on, ["on"], ON_KEYS, "`on:`", out);
  if (data["safe-outputs"]) {
    unknownKeys(file, data["safe-outputs"], ["safe-outputs"], SAFE_OUTPUT_KEYS, "`safe-outputs:`", out);
  }
  if (data.tools) unknownKeys(file, data.tools, ["tools"], TOOL_KEYS, "`tools:`", out);
  if (data.engine && typeof data.engine === "object") {
    unknownKeys(file, data.engine, ["engine"], ENGINE_KEYS, "`engine:`", out);
  }
  const res = (shared ? sharedFrontmatterSchema : frontmatterSchema).safeParse(data);
  // A shared file has no `on:` of its own; the model's `on` is then the empty trigger map.
  const frontmatter: Frontmatter = res.success ? { on: { triggers: {} }, ...res.data } : emptyFrontmatter();
  if (!shared && data.on === undefined) {
    out.push(
      diagnostic(
        "missing-key",
        { file: file.path, line: file.split.frontmatterStartLine, column: 1 },
        'missing required key "on"',
        "add an `on:` trigger, for example `on: daily` (a file without `on:` is a shared import)",
      ),
    );
  }
  const reportedPaths = new Set<string>();
  for (const problem of valueTypeProblems(data)) {
    reportedPaths.add(problem.path.join("\0"));
    const [line, column] = file.locate(problem.path);
    out.push(diagnostic("invalid-value", { file: file.path, line, column }, problem.message, problem.hint));
  }
  // GitHub syntax of what is copied into the lock (steps, jobs, filters…); the schema then stays quiet there.
  const syntaxPaths: string[] = [];
  for (const problem of workflowSyntaxProblems(data)) {
    syntaxPaths.push(problem.path.join("\0"));
    // At the offending key (not its value, which may start lines later).
    const [line, column] = file.locate(problem.path, true);
    out.push(diagnostic(problem.code, { file: file.path, line, column }, problem.message, problem.hint));
  }
  // A newer key the target refuses is reported once, as refused: its value is not type-checked as well.
  const refusedKeys = new Set(
    Object.keys(data).filter((k) => !topLevelKeys.includes(k) && refusals[k] !== undefined),
  );
  if (!res.success) {
    for (const issue of res.error.issues.flatMap(unionBranchIssues)) {
      if (issue.path[0] === "on" && data.on === undefined) continue;
      if (typeof issue.path[0] === "string" && refusedKeys.has(issue.path[0])) continue;
      const p = issue.path.map((x) => (typeof x === "symbol" ? String(x) : x)) as (string | number)[];
      // Reported above in plain words (a rule laxer than the schema that found nothing here does not hide it).
      if (ruleCovers(p) && reportedPaths.has(p.join("\0"))) continue;
      // Inside a value a rule already refused as a whole (`cache:` that is not text inputs).
      if (p.some((_, i) => i < p.length - 1 && reportedPaths.has(p.slice(0, i + 1).join("\0")))) continue;
      const at = p.join("\0");
      if (syntaxPaths.some((reported) => at === reported || at.startsWith(reported + "\0"))) continue;
      // A union that fails, or a mapping with a key too many, because of a syntax problem inside it: that
      // problem says why.
      const within = syntaxPaths.some((reported) => reported.startsWith(at + "\0"));
      if (within && (issue.code === "invalid_union" || issue.code === "unrecognized_keys")) continue;
      const [line, column] = file.locate(p);
      // zod leaves `input` unset on some issues (catchall values), so look the value up in the document.
      const value = p.reduce<unknown>(
        (v, k) => (isObject(v) ? v[k] : undefined),
        data,
      );
      const missing = (issue.code === "invalid_type" || issue.code === "invalid_union") &&
        value === undefined;
      out.push(
        diagnostic(
          missing ? "missing-key" : "invalid-value",
          { file: file.path, line, column },
          missing
            ? `missing required key "${p.join(".")}"`
            : `invalid value at "${p.join(".")}": ${plainWords(issue.message, value)}`,
          missing && p[0] === "on" ? "add an `on:` trigger, for example `on: daily`" : undefined,
        ),
      );
    }
  }
  const engineId = typeof data.engine === "string" ? data.engine : objectOf(data.engine).id;
  // A non-string id is already refused by the schema above (engine.id must be text).
  if (typeof engineId === "string" && !ENGINE_IDS.includes(engineId)) {
    const [line, column] = file.locate(typeof data.engine === "string" ? ["engine"] : ["engine", "id"]);
    const guess = didYouMean(engineId, ENGINE_IDS);
    out.push(
      diagnostic(
        "unknown-engine",
        { file: file.path, line, column },
        `unknown engine "${engineId}"`,
        guess ? `did you mean "${guess}"?` : `use one of ${ENGINE_IDS.join(", ")}`,
      ),
    );
  }
  const runsOn = data["runs-on"];
  const labels = typeof runsOn === "string" ? [runsOn] : Array.isArray(runsOn) ? runsOn.map(String) : [];
  for (const label of labels) {
    if (/^macos/i.test(label)) {
      const [line, column] = file.locate(["runs-on"]);
      out.push(
        diagnostic(
          "macos-runner",
          { file: file.path, line, column },
          `macOS runner "${label}" is not supported (agentic workflows need container jobs)`,
        ),
      );
    }
  }
  return { diagnostics: out, frontmatter };
}
