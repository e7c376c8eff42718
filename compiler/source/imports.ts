/**
 * Stage 3 — resolve imports: breadth-first over `imports:` (local relative paths, repository-root
 * `.github/…` paths and remote `owner/repo/path@ref` served from the `.github/aw/imports` cache), with
 * cycle and duplicate detection. `with:` inputs substitute `${{ github.aw.inputs.<name> }}`.
 */
import { clonePlain } from "./clone_plain.ts";
import { posix } from "node:path";
import type { Diagnostic, FileReader } from "../api.ts";
import { type ParsedFile, parseWorkflowFile } from "./parse.ts";
import { emptyFrontmatter, type Frontmatter, validateFrontmatter } from "./schema.ts";
import { diagnostic } from "./diagnostics.ts";
import { isObject, listOf, type Mapping, objectOf } from "./values.ts";

/** One resolved import. */
export interface ResolvedImport {
  /** The spec as written (e.g. `shared/otlp.md`). */
  spec: string;
  /** Repository-relative path of the file read. */
  path: string;
  /** Path shown in runtime-import macros and the header (`shared/x.md` style for local files). */
  displayPath: string;
  /** Parsed file (after input substitution). */
  file: ParsedFile;
  /**
   * The validated frontmatter (the empty model for `.github/agents/` files, whose frontmatter is the
   * agent's own and not a workflow's).
   */
  frontmatter: Frontmatter;
  /** `with:` inputs. */
  inputs: Record<string, unknown>;
  /**
   * Whether the file is parameterised: it gets inputs, from `with:` or from its `import-schema` defaults.
   * gh-aw inlines such a file's body into the prompt (substituted) instead of runtime-importing it.
   */
  parameterised: boolean;
  /** Paths of the files this import itself imports (edges of the import graph). */
  dependsOn: string[];
}

interface ImportRef {
  spec: string;
  inputs: Record<string, unknown>;
  index: number;
}

function importRefs(data: Record<string, unknown>): ImportRef[] {
  const raw = data.imports;
  const list = Array.isArray(raw) ? raw : isObject(raw) ? listOf(raw.aw) : [];
  const out: ImportRef[] = [];
  list.forEach((item, index) => {
    if (typeof item === "string") out.push({ spec: item, inputs: {}, index });
    else if (isObject(item)) {
      const o = item;
      const spec = (o.uses ?? o.path) as string | undefined;
      if (typeof spec === "string") {
        out.push({ spec, inputs: objectOf(o.with ?? o.inputs), index });
      }
    }
  });
  return out;
}

const REMOTE = /^([\w.-]+)\/([\w.-]+)\/(.+?)@([\w./-]+)$/;
const COMMIT = /^[0-9a-f]{40}$/;

/**
 * A remote import pinned to a branch or tag (`owner/repo/path@main`): gh-aw files the cache under the commit
 * the ref resolved to when it compiled, so offline the ref is found as the one cached commit that holds the
 * file. Several cached commits holding it are ambiguous (which one the branch means today is not knowable
 * offline) and refused, naming them.
 */
async function branchPinnedImport(
  cachePath: string,
  read: FileReader,
): Promise<{ path?: string; problem?: string }> {
  const m = /^(\.github\/aw\/imports\/[^/]+\/[^/]+)\/([^/]+)\/([^/]+)$/.exec(cachePath);
  if (!m || COMMIT.test(m[2]) || !read.list) return {};
  const [, repoDir, ref, file] = m;
  const holding: string[] = [];
  for (const name of (await read.list(repoDir)) ?? []) {
    if (COMMIT.test(name) && (await read(`${repoDir}/${name}/${file}`)) !== undefined) holding.push(name);
  }
  if (holding.length === 1) return { path: `${repoDir}/${holding[0]}/${file}` };
  if (holding.length > 1) {
    return {
      problem: `"${ref}" matches ${holding.length} cached commits (${holding.join(", ")}); pin one of them`,
    };
  }
  return {};
}

/** Maps an import spec to the repository-relative path to read. */
export function importPath(spec: string, importerPath: string): { path: string; remote: boolean } {
  const clean = spec.split("#")[0];
  const m = REMOTE.exec(clean);
  if (m && !clean.startsWith(".") && !clean.startsWith("shared/")) {
    const [, owner, repo, p, ref] = m;
    return { path: `.github/aw/imports/${owner}/${repo}/${ref}/${p.replace(/\//g, "_")}`, remote: true };
  }
  if (clean.startsWith(".github/") || clean.startsWith("/")) {
    return { path: clean.replace(/^\//, ""), remote: false };
  }
  return { path: posix.normalize(posix.join(posix.dirname(importerPath), clean)), remote: false };
}

/**
 * Shared files are imported by many workflows of one repository: their parse and validation are memoised by
 * path and text (bounded), and every caller gets its own deep copy of the data, so no workflow can change
 * what another sees.
 */
const MEMO_LIMIT = 512;
interface ParsedImport {
  parsed: ParsedFile;
  diagnostics: Diagnostic[];
  frontmatter: Frontmatter;
}
const parsedImports = new Map<string, ParsedImport>();
/** Shared files' parses by path and text, before validation (which depends on the target's keys). */
const parsedFiles = new Map<string, ParsedFile>();

/** The memoised parse of a shared file, without validation: read it, never change it. */
function sharedFile(path: string, content: string): ParsedFile {
  const key = `${path}\0${content}`;
  let hit = parsedFiles.get(key);
  if (!hit) {
    hit = parseWorkflowFile(path, content);
    if (parsedFiles.size >= MEMO_LIMIT) parsedFiles.delete(parsedFiles.keys().next().value!);
    parsedFiles.set(key, hit);
  }
  return hit;
}

/** The memoised parse of an import, shared between workflows: read it, never change it. */
function sharedParse(
  path: string,
  content: string,
  extraKeys: readonly string[] = [],
  refusals?: Readonly<Record<string, string>>,
): ParsedImport {
  const key = `${path}\0${content}\0${extraKeys.join(",")}\0${
    refusals ? Object.keys(refusals).join(",") : ""
  }`;
  let hit = parsedImports.get(key);
  if (!hit) {
    const parsed = sharedFile(path, content);
    const diagnostics = [...parsed.diagnostics];
    let frontmatter: Frontmatter = emptyFrontmatter();
    if (parsed.diagnostics.length === 0 && !path.startsWith(".github/agents/")) {
      const validated = validateFrontmatter(parsed, true, extraKeys, refusals);
      diagnostics.push(...validated.diagnostics.filter((d) => d.code !== "missing-key"));
      frontmatter = validated.frontmatter;
    }
    hit = { parsed, diagnostics, frontmatter };
    if (parsedImports.size >= MEMO_LIMIT) parsedImports.delete(parsedImports.keys().next().value!);
    parsedImports.set(key, hit);
  }
  return hit;
}

/** A parse of an import the caller may change (a copy of the memoised one). */
function parseImport(
  path: string,
  content: string,
  extraKeys: readonly string[],
  refusals?: Readonly<Record<string, string>>,
): ParsedImport {
  const hit = sharedParse(path, content, extraKeys, refusals);
  return {
    parsed: {
      ...hit.parsed,
      data: clonePlain(hit.parsed.data),
      diagnostics: [...hit.parsed.diagnostics],
    },
    diagnostics: hit.diagnostics.map((d) => ({ ...d })),
    frontmatter: clonePlain(hit.frontmatter),
  };
}

/** The `import-schema` of a shared file (name → {type, required, default, description}). */
function importSchema(path: string, content: string): Record<string, Record<string, unknown>> {
  // Only the schema is copied: cloning the whole parse for it cost more than the rest of the lookup. The
  // parse alone is enough: validating here too (against v0.76.1's keys, whatever the target) doubled the
  // validation of every shared file.
  const raw = sharedFile(path, content).data["import-schema"];
  return objectOf<Mapping>(clonePlain(raw));
}

function substituteInputs(content: string, inputs: Record<string, unknown>): string {
  return content.replace(/\$\{\{\s*github\.aw\.(?:import-)?inputs\.([\w-]+)\s*\}\}/g, (all, name: string) => {
    const v = inputs[name];
    return v === undefined ? all : typeof v === "string" ? v : JSON.stringify(v);
  });
}

/** Resolves every import of `main` (BFS order). */
export async function resolveImports(
  main: ParsedFile,
  read: FileReader,
  /** Top-level keys the target release supports beyond v0.76.1's. */
  extraKeys: readonly string[] = [],
  /** Why the target refuses each newer key (`newerKeyRefusals`); default: v0.76.1's. */
  refusals?: Readonly<Record<string, string>>,
): Promise<{ imports: ResolvedImport[]; diagnostics: Diagnostic[] }> {
  const diagnostics: Diagnostic[] = [];
  const imports: ResolvedImport[] = [];
  const seen = new Map<string, string>();
  const queue: { file: ParsedFile; chain: string[] }[] = [{ file: main, chain: [main.path] }];
  while (queue.length > 0) {
    const { file, chain } = queue.shift()!;
    const importer = imports.find((i) => i.file === file);
    for (const ref of importRefs(file.data)) {
      const resolved = importPath(ref.spec, file.path);
      let path = resolved.path;
      const remote = resolved.remote;
      const [line, column] = file.locate(["imports", ref.index]);
      const at = { file: file.path === main.path ? main.path : file.path, line, column };
      if (chain.includes(path)) {
        diagnostics.push(diagnostic("import-cycle", at, `import cycle: ${[...chain, path].join(" → ")}`));
        continue;
      }
      let content = await read(path);
      let cacheProblem: string | undefined;
      if (content === undefined && remote) {
        const pinned = await branchPinnedImport(path, read);
        if (pinned.path) {
          path = pinned.path;
          content = await read(path);
        }
        cacheProblem = pinned.problem;
      }
      if (content === undefined && !remote && !ref.spec.startsWith(".github/")) {
        // Nested imports may also be written relative to the workflows folder.
        const alt = posix.normalize(posix.join(".github/workflows", ref.spec.split("#")[0]));
        const altContent = alt !== path ? await read(alt) : undefined;
        if (altContent !== undefined) {
          content = altContent;
          path = alt;
        }
      }
      if (content === undefined) {
        diagnostics.push(
          diagnostic(
            remote ? "import-not-cached" : "import-not-found",
            at,
            remote
              ? `remote import "${ref.spec}" is not in the imports cache (${path})${
                cacheProblem ? `: ${cacheProblem}` : ""
              }`
              : `import "${ref.spec}" not found (${path})`,
            remote
              ? "the cache files a remote import under the commit its ref resolved to " +
                "(.github/aw/imports/<owner>/<repo>/<sha>/<path with / as _>): compile once online with gh aw to fill it, " +
                "or pin the import to a cached commit"
              : undefined,
          ),
        );
        continue;
      }
      // Plain imports order the header list (dependencies first); parameterised `uses:`/`with:` ones do not.
      if (Object.keys(ref.inputs).length === 0) importer?.dependsOn.push(path);
      const key = JSON.stringify(ref.inputs);
      if (seen.has(path)) {
        if (seen.get(path) !== key) {
          diagnostics.push(
            diagnostic("import-duplicate", at, `"${ref.spec}" is imported twice with different inputs`),
          );
        }
        continue;
      }
      seen.set(path, key);
      const schema = importSchema(path, content);
      const inputs: Record<string, unknown> = { ...ref.inputs };
      for (const [name, spec] of Object.entries(schema)) {
        if (inputs[name] === undefined && spec.default !== undefined) inputs[name] = spec.default;
        if (inputs[name] === undefined && spec.required === true) {
          diagnostics.push(
            diagnostic(
              "import-input-missing",
              at,
              `import "${ref.spec}" requires input "${name}"`,
              `pass it with \`with: { ${name}: … }\`${spec.description ? ` (${spec.description})` : ""}`,
            ),
          );
        }
      }
      for (const name of Object.keys(ref.inputs)) {
        if (Object.keys(schema).length > 0 && !(name in schema)) {
          diagnostics.push(
            diagnostic(
              "import-input-unknown",
              at,
              `import "${ref.spec}" has no input "${name}"`,
              `known inputs: ${Object.keys(schema).join(", ")}`,
            ),
          );
        }
      }
      const { parsed, diagnostics: importDiagnostics, frontmatter } = parseImport(
        path,
        substituteInputs(content, inputs),
        extraKeys,
        refusals,
      );
      diagnostics.push(...importDiagnostics);
      // Both absolute, so the path module needs no working directory (a cwd call per import otherwise).
      const displayPath = remote ? ref.spec : posix.relative("/.github/workflows", `/${path}`);
      imports.push({
        spec: ref.spec,
        path,
        displayPath,
        file: parsed,
        frontmatter,
        inputs: ref.inputs,
        parameterised: Object.keys(inputs).length > 0,
        dependsOn: [],
      });
      queue.push({ file: parsed, chain: [...chain, path] });
    }
  }
  return { imports, diagnostics };
}

/**
 * The order gh-aw lists resolved imports in the lock header: dependencies before the files that import them
 * (Kahn's algorithm), choosing the alphabetically first ready file each time.
 */
export function headerImportOrder(
  imports: Pick<ResolvedImport, "path" | "displayPath" | "dependsOn">[],
): string[] {
  const byPath = new Map(imports.map((i) => [i.path, i]));
  const pending = new Map(imports.map((i) => [i.path, new Set(i.dependsOn.filter((d) => byPath.has(d)))]));
  const out: string[] = [];
  while (pending.size > 0) {
    const ready = [...pending.entries()].filter(([, deps]) => deps.size === 0).map(([p]) => p);
    // A cycle cannot reach here (diagnosed earlier); fall back to the remaining files in name order.
    const pick = (ready.length > 0 ? ready : [...pending.keys()])
      .sort((a, b) => cmp(byPath.get(a)!.displayPath, byPath.get(b)!.displayPath))[0];
    out.push(byPath.get(pick)!.displayPath);
    pending.delete(pick);
    for (const deps of pending.values()) deps.delete(pick);
  }
  return out;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
