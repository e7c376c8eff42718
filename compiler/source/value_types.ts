/**
 * Type rules for frontmatter values whose wrong type used to pass silently (issue 19 item 13: `max: lots`,
 * `tools.bash: 5`, `timeout-minutes: -5`). Each rule names the expected form in plain words and gives a hint;
 * the zod schema (source/schema.ts) stays the structural check, and its message for these paths is replaced
 * by the rule's, so an author never reads a raw "Invalid input".
 */
import { isMapping, isObject } from "./values.ts";
import { BOOLEAN_KEYS } from "./boolean_keys.ts";

/** A path pattern: literal keys, or `*` for any key (or list index) at that level. */
type PathPattern = readonly string[];

interface ValueRule {
  path: PathPattern;
  /** The accepted forms, as a sentence fragment: "must be …". */
  expected: string;
  hint: string;
  accepts(value: unknown): boolean;
}

const EXPRESSION = /^\$\{\{.*\}\}$/s;
const isExpression = (value: unknown) => typeof value === "string" && EXPRESSION.test(value.trim());
const positiveInteger = (value: unknown) =>
  (typeof value === "number" && Number.isInteger(value) && value >= 1) || isExpression(value);

const isScalarValue = (value: unknown) =>
  value === null || ["string", "number", "boolean"].includes(typeof value);

/** `checkout:` entry fields become `actions/checkout` inputs, which are scalars. */
const CHECKOUT_SCALARS = [
  "path",
  "repository",
  "ref",
  "token",
  "github-token",
  "fetch-depth",
  "submodules",
  "lfs",
];
const checkoutRules: ValueRule[] = CHECKOUT_SCALARS.flatMap((field) =>
  [["checkout", field], ["checkout", "*", field]].map((path) => ({
    path,
    expected: "a single value (text, number or true/false)",
    hint: `for example \`${field}: ${field === "fetch-depth" ? "0" : field === "lfs" ? "true" : "main"}\``,
    accepts: isScalarValue,
  }))
).concat(
  [["checkout", "sparse-checkout"], ["checkout", "*", "sparse-checkout"]].map((path) => ({
    path,
    expected: "a path pattern or a list of path patterns",
    hint: "for example `sparse-checkout: [src, docs]`",
    accepts: (value: unknown) =>
      typeof value === "string" || (Array.isArray(value) && value.every((item) => typeof item === "string")),
  })),
);

const textOrTexts = (value: unknown) =>
  typeof value === "string" || (Array.isArray(value) && value.every((item) => typeof item === "string"));

/** `cache:` entries become `actions/cache` steps: a mapping (or a list of them) of text inputs. */
const cacheRules: ValueRule[] = [
  {
    path: ["cache"],
    expected: "a mapping of text inputs (`key`, `path`, …), or a list of such mappings",
    hint: "for example `cache: {key: deps-${{ hashFiles('package-lock.json') }}, path: node_modules}`",
    accepts: (value) => {
      const entryOk = (entry: unknown) =>
        isMapping(entry) &&
        Object.values(entry).every((field) => isScalarValue(field) || textOrTexts(field));
      return entryOk(value) || (Array.isArray(value) && value.every(entryOk));
    },
  },
  ...["key", "path", "restore-keys"].flatMap((field) =>
    [["cache", field], ["cache", "*", field]].map((path) => ({
      path,
      expected: field === "key" ? "text" : "text or a list of texts",
      hint: `for example \`${field}: ${field === "key" ? "deps-v1" : "node_modules"}\``,
      accepts: field === "key" ? (value: unknown) => typeof value === "string" : textOrTexts,
    }))
  ),
];

/** Keys gh-aw's schema types as boolean: `true` or `false`, nothing else (not "yes", not an expression). */
const booleanRules: ValueRule[] = BOOLEAN_KEYS.map((key) => {
  const path = key.split(".");
  return {
    path,
    expected: "a boolean (true or false)",
    hint: `for example \`${path.at(-1)}: true\``,
    accepts: (value: unknown) => typeof value === "boolean",
  };
});

const RULES: readonly ValueRule[] = [
  ...booleanRules,
  ...checkoutRules,
  ...cacheRules,
  {
    path: ["timeout-minutes"],
    expected: "a whole number of minutes, 1 or more (or a ${{ }} expression)",
    hint: "for example `timeout-minutes: 20`",
    accepts: positiveInteger,
  },
  {
    path: ["tools", "bash"],
    expected: "true, false, null, or a list of allowed commands",
    hint: 'for example `bash: true` or `bash: ["git status", "ls"]`',
    accepts: (value) =>
      value === null || typeof value === "boolean" ||
      (Array.isArray(value) && value.every((item) => typeof item === "string")),
  },
  {
    path: ["tools", "timeout"],
    expected: "a whole number of seconds, 1 or more",
    hint: "for example `timeout: 300`",
    accepts: positiveInteger,
  },
  {
    path: ["tools", "startup-timeout"],
    expected: "a whole number of seconds, 1 or more",
    hint: "for example `startup-timeout: 120`",
    accepts: positiveInteger,
  },
  {
    path: ["engine", "max-turns"],
    expected: "a whole number of turns, 1 or more (or a ${{ }} expression)",
    hint: "for example `max-turns: 30`",
    accepts: positiveInteger,
  },
  {
    path: ["safe-outputs", "*", "max"],
    expected: "a whole number, 1 or more (or a ${{ }} expression)",
    hint: "for example `max: 3`",
    accepts: positiveInteger,
  },
];

/** One refused value. */
export interface ValueTypeProblem {
  /** Concrete path of the value. */
  path: (string | number)[];
  /** Plain-words message naming the key, the expected form and the value found. */
  message: string;
  hint: string;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return String(value);
}

/** Every value of `data` at `pattern` (objects only; `*` expands every key). */
function valuesAt(
  data: unknown,
  pattern: PathPattern,
  at: (string | number)[] = [],
): [(string | number)[], unknown][] {
  if (pattern.length === 0) return [[at, data]];
  const [head, ...rest] = pattern;
  if (Array.isArray(data)) {
    return head === "*" ? data.flatMap((item, i) => valuesAt(item, rest, [...at, i])) : [];
  }
  if (!isObject(data)) return [];
  const record = data;
  const keys = head === "*" ? Object.keys(record) : Object.hasOwn(record, head) ? [head] : [];
  return keys.flatMap((key) => valuesAt(record[key], rest, [...at, key]));
}

/** The values of `data` that break a rule. */
export function valueTypeProblems(data: Record<string, unknown>): ValueTypeProblem[] {
  const problems: ValueTypeProblem[] = [];
  const seen = new Set<string>();
  for (const rule of RULES) {
    for (const [path, value] of valuesAt(data, rule.path)) {
      if (value === undefined || rule.accepts(value)) continue;
      // One problem per value (a boolean key may have a looser rule of its own too).
      if (seen.has(path.join("\0"))) continue;
      seen.add(path.join("\0"));
      problems.push({
        path,
        message: `"${path.join(".")}" must be ${rule.expected}, got ${describe(value)}`,
        hint: rule.hint,
      });
    }
  }
  return problems;
}

/** Whether a rule covers `path` (its zod message is then replaced by the rule's). */
export function ruleCovers(path: (string | number)[]): boolean {
  return RULES.some((rule) =>
    rule.path.length === path.length &&
    rule.path.every((segment, i) => segment === "*" || segment === path[i])
  );
}
