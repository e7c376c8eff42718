/**
 * The user part of the activation prompt as gh-aw assembles it: which files are runtime-imported or embedded,
 * the embedded text, and the expressions passed through `env:` in gh-aw's extraction order (the order of the
 * "Interpolate variables and render templates" env).
 */
import { bodyBeforeInlineSections } from "../source/inline_sections.ts";
import { macroPath } from "../source/workflow_source.ts";
import { embedPromptText, type ExprMapping, extractExpressions } from "./jobs/prompt_markdown.ts";
import type { Planning } from "./planning.ts";

/** What the prompt step reads besides the built-in sections. */
export interface PromptBody {
  /** Prompt imports in order: a path is runtime-imported, `{ inline }` text (imports with inputs) is embedded. */
  runtimeImports: (string | { inline: string })[];
  /** The whole user prompt, embedded at compile time (`inlined-imports: true`). */
  inlinedBody?: string;
  /** The same, piece by piece (each import, then the body), as a prompt built from JSON lists them. */
  inlinedPieces?: string[];
  /** Env name → expression, in extraction order (experiment values included). */
  bodyExprs: Map<string, string>;
}

/** Which expressions the prompt may substitute, and how entity numbers fall back for dispatches. */
export interface ExprPolicy {
  /** Custom jobs that run after activation: their outputs cannot reach the prompt. */
  lateJobs: string[];
  /** A dispatch `item_number` input: entity numbers fall back to it (the env names stay). */
  itemFallback: boolean;
  /** A/B experiment names, whose picked values the prompt reads. */
  experiments: string[];
}

/** The experiment values' env entries. */
function experimentEntries(names: string[]): [string, string][] {
  return names.map((n) => [
    `GH_AW_EXPERIMENTS_${n.toUpperCase().replace(/[^A-Z0-9]/g, "_")}`,
    `steps.pick-experiment.outputs.${n}`,
  ]);
}

/** Ordered env entries from extraction groups, late-job outputs dropped, first name wins. */
function orderedExprs(groups: [string, string][][], policy: ExprPolicy): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, expr] of groups.flat()) {
    if (out.has(name) || policy.lateJobs.some((n) => expr.includes(`needs.${n}.`))) continue;
    const fallback = policy.itemFallback &&
      /^github\.event\.(pull_request|issue|discussion)\.number$/.test(expr);
    out.set(name, fallback ? `${expr} || inputs.item_number` : expr);
  }
  return out;
}

const entries = (m: ExprMapping[]): [string, string][] => m.map((x) => [x.name, x.expr]);

/** Whether a mapping may be substituted (not an output of a job that runs after activation). */
function substitutable(policy: ExprPolicy): (m: ExprMapping) => boolean {
  return (m) => !policy.lateJobs.some((n) => m.expr.includes(`needs.${n}.`));
}

/**
 * The prompt body. Imports with inputs are embedded first (their expressions extracted); then either every
 * other import and the body's runtime-import macros as `{{#runtime-import …}}` lines followed by the body's
 * own macro, or, with `inlined-imports: true`, all of them embedded. gh-aw orders the expressions: embedded
 * imports, then the body's (before the inline agent/skill sections) and the experiment values; inlined, the
 * experiment values come before the body's.
 */
export function promptBody(planning: Planning, policy: ExprPolicy): PromptBody {
  const { source, file, data, imports } = planning;
  const keep = substitutable(policy);
  const withInputs = imports.filter((i) => !i.path.startsWith(".github/agents/") && i.parameterised)
    .map((i) => embedPromptText(i.file.split.body.trim(), keep));
  const paths = runtimeImportPaths(planning);
  const experiments = experimentEntries(policy.experiments);
  if (data["inlined-imports"] !== true) {
    const main = extractExpressions(bodyBeforeInlineSections(file.split.body));
    return {
      runtimeImports: [
        ...withInputs.map((e) => ({ inline: e.text.trim() })).filter((v) => v.inline !== ""),
        ...paths,
        source,
      ],
      bodyExprs: orderedExprs(
        [...withInputs.map((e) => entries(e.exprs)), entries(main), experiments],
        policy,
      ),
    };
  }
  const bodies = new Map<string, string>([
    ...imports.map((i): [string, string] => [i.path, i.file.split.body]),
    ...Object.entries(planning.macroBodies),
  ]);
  const embedded = paths.filter((p) => bodies.has(p)).map((p) =>
    embedPromptText(bodies.get(p)!.trim(), keep)
  );
  // The body keeps its leading blank lines and ends with exactly one newline.
  const main = embedPromptText(`${file.split.body.trimEnd()}\n`, keep);
  // gh-aw writes each piece's lines in turn: the imports with inputs (followed by two blank lines), every
  // other import's trimmed body (an empty one leaves a blank line), then the body.
  const pieces = [
    ...withInputs.map((e) => `${e.text.trim()}\n\n`),
    ...embedded.map((e) => e.text),
    main.text,
  ];
  return {
    runtimeImports: [],
    inlinedBody: pieces.join("\n"),
    inlinedPieces: pieces,
    bodyExprs: orderedExprs(
      [
        ...withInputs.map((e) => entries(e.exprs)),
        ...embedded.map((e) => entries(e.exprs)),
        experiments,
        entries(
          main.exprs,
        ),
      ],
      policy,
    ),
  };
}

/**
 * The files runtime-imported before the body: every import without inputs, then the `{{#runtime-import …}}`
 * macros of the main body. gh-aw reads the macros only before the inline agent/skill sections, and lists
 * one that repeats an import again.
 */
function runtimeImportPaths({ source, file, imports }: Planning): string[] {
  const bodyMacros = [
    ...bodyBeforeInlineSections(file.split.body).matchAll(/^\{\{#runtime-import\s+([^}\s]+)\s*\}\}/gm),
  ]
    .map((m) => macroPath(m[1]))
    .filter((p, i, all) => all.indexOf(p) === i);
  const importPaths = imports.filter((i) => !i.parameterised).map((i) => i.path);
  return [
    ...importPaths.filter((p, i) => importPaths.indexOf(p) === i),
    ...bodyMacros.filter((p) => p !== source),
  ];
}
