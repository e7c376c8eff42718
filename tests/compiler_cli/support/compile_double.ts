/**
 * TEST DOUBLE of the compiler core for CLI tests only — not a fake of the product. It honours the
 * `CompileFunction` contract of compiler/api.ts with deterministic, simple lock text: a `gh-aw-metadata`
 * header whose `frontmatter_hash` covers the workflow's and its imports' frontmatter and whose `body_hash`
 * covers the body, like the real core's, so the CLI's write/check/watch logic can be exercised before the
 * core is merged. A frontmatter line `fail: <message>` yields an error diagnostic on that line.
 */
import { parse } from "yaml";
import type { CompiledWorkflow, CompileFunction, CompileOptions } from "../../../compiler/api.ts";

/** A compile function plus the list of option sets it was called with. */
export interface CompileDouble {
  /** The function to inject as `deps.compile`. */
  compile: CompileFunction;
  /** Every call's options, in order. */
  calls: CompileOptions[];
  /** How many calls have returned (a call reads its inputs until it returns). */
  completed(): number;
}

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function split(text: string): { frontmatter: string; body: string } | undefined {
  const lines = text.split("\n");
  if (lines[0] !== "---") return undefined;
  const end = lines.indexOf("---", 1);
  if (end < 0) return undefined;
  return { frontmatter: lines.slice(1, end).join("\n"), body: lines.slice(end + 1).join("\n") };
}

/** Creates the double. */
export function createCompileDouble(): CompileDouble {
  const calls: CompileOptions[] = [];
  let completed = 0;
  const compile: CompileFunction = async (options) => {
    calls.push(options);
    const root = options.repoRoot;
    const names = options.workflows ?? await listWorkflows(root);
    const workflows: CompiledWorkflow[] = [];
    for (const name of names) {
      const source = name.includes("/") ? name : `.github/workflows/${name.replace(/\.md$/, "")}.md`;
      workflows.push(await compileOne(root, source, options));
    }
    workflows.sort((a, b) => a.source.localeCompare(b.source));
    completed++;
    return { workflows, diagnostics: [] };
  };
  return { compile, calls, completed: () => completed };
}

async function listWorkflows(root: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(`${root}/.github/workflows`)) {
    if (entry.isFile && entry.name.endsWith(".md")) {
      const text = await Deno.readTextFile(`${root}/.github/workflows/${entry.name}`);
      if (/^on:/m.test(split(text)?.frontmatter ?? "")) names.push(`.github/workflows/${entry.name}`);
    }
  }
  return names;
}

async function compileOne(root: string, source: string, options: CompileOptions): Promise<CompiledWorkflow> {
  const lockPath = source.replace(/\.md$/, ".lock.yml");
  const text = await Deno.readTextFile(`${root}/${source}`);
  const parts = split(text);
  if (!parts) {
    return {
      source,
      lockPath,
      dependencies: [source],
      diagnostics: [{ file: source, line: 1, column: 1, severity: "error", message: "missing frontmatter" }],
    };
  }
  const data = (parse(parts.frontmatter) ?? {}) as Record<string, unknown>;
  const imports = Array.isArray(data.imports)
    ? (data.imports as string[]).map((i) => `.github/workflows/${i}`)
    : [];
  const importedFrontmatters: string[] = [];
  for (const path of imports) {
    importedFrontmatters.push(split(await Deno.readTextFile(`${root}/${path}`))?.frontmatter ?? "");
  }
  const failLine = parts.frontmatter.split("\n").findIndex((l) => l.startsWith("fail:"));
  if (failLine >= 0) {
    return {
      source,
      lockPath,
      dependencies: [source, ...imports],
      diagnostics: [{
        file: source,
        line: failLine + 2,
        column: 1,
        severity: "error",
        message: String(data.fail),
        hint: "remove the fail key",
        code: "test-failure",
      }],
    };
  }
  const frontmatterHash = await sha256([parts.frontmatter, ...importedFrontmatters].join("\n---\n"));
  const bodyHash = await sha256(parts.body);
  const lockContent = [
    `# gh-aw-metadata: {"schema_version":"v4","frontmatter_hash":"${frontmatterHash}","body_hash":"${bodyHash}"}`,
    `# test double lock for ${source} (mode ${options.actionMode ?? "release"}${
      options.ghes ? ", ghes" : ""
    })`,
    `name: ${JSON.stringify(String(data.name ?? source))}`,
    `imports: ${JSON.stringify(imports)}`,
    "",
  ].join("\n");
  return { source, lockPath, lockContent, dependencies: [source, ...imports], diagnostics: [] };
}
