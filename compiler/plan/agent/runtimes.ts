/**
 * Language runtimes the agent job sets up before anything else runs: detected from the commands the workflow's
 * own steps and local MCP servers run (`npx` → Node.js, `python3`/`pip` → Python, `uvx` → uv and Python,
 * `go` → Go...), overridden or added by frontmatter `runtimes:`. Each becomes one pinned `setup-*` step.
 */
import type { StepPlan } from "../types.ts";
import type { Frontmatter } from "../../source/schema.ts";
import { lit, plain, sq, type YValue } from "../../yaml/writer.ts";
import { mappingOf, objectOf } from "../../source/values.ts";

/** One runtime gh-aw knows how to set up. */
export interface RuntimeDef {
  id: string;
  /** Step name suffix (`Setup <name>`). */
  name: string;
  /** Setup action and the release the lock pins. */
  action: string;
  actionVersion: string;
  /** Input naming the runtime version; absent for runtimes without one (uv). */
  versionField?: string;
  defaultVersion?: string;
  /** Commands whose use means the runtime is needed. */
  commands: string[];
  /** Extra `with:` inputs (caches are off: a poisoned cache must not reach an agent). */
  extra?: Record<string, string | boolean>;
}

/** Known runtimes, sorted by id (the order their steps are emitted in). */
const RUNTIMES: RuntimeDef[] = [
  {
    id: "dotnet",
    name: ".NET",
    action: "actions/setup-dotnet",
    actionVersion: "v5.2.0",
    versionField: "dotnet-version",
    defaultVersion: "8.0",
    commands: ["dotnet"],
  },
  {
    id: "go",
    name: "Go",
    action: "actions/setup-go",
    actionVersion: "v6.4.0",
    versionField: "go-version",
    defaultVersion: "1.26",
    commands: ["go"],
    extra: { cache: false },
  },
  {
    id: "java",
    name: "Java",
    action: "actions/setup-java",
    actionVersion: "v5.2.0",
    versionField: "java-version",
    defaultVersion: "21",
    commands: ["java", "javac", "mvn", "gradle"],
    extra: { distribution: "temurin" },
  },
  {
    id: "node",
    name: "Node.js",
    action: "actions/setup-node",
    actionVersion: "v6.4.0",
    versionField: "node-version",
    defaultVersion: "24",
    commands: ["node", "npm", "npx", "yarn", "pnpm"],
    extra: { "package-manager-cache": false },
  },
  {
    id: "python",
    name: "Python",
    action: "actions/setup-python",
    actionVersion: "v6.2.0",
    versionField: "python-version",
    defaultVersion: "3.12",
    commands: ["python", "python3", "pip", "pip3"],
  },
  {
    id: "uv",
    name: "uv",
    action: "astral-sh/setup-uv",
    actionVersion: "v8.1.0",
    commands: ["uv", "uvx"],
  },
];

const BY_COMMAND = new Map(RUNTIMES.flatMap((r) => r.commands.map((c) => [c, r] as const)));

/** The `gh aw` CLI: set up (dev: built from the checked-out source) when a step runs `gh aw`. */
export const GH_AW_RUNTIME: RuntimeDef = {
  id: "gh-aw",
  name: "gh-aw",
  action: "github/gh-aw/actions/setup-cli",
  actionVersion: "v0.76.1",
  commands: [],
};

/** A runtime to set up, with the version asked for (undefined: the default). */
export interface RuntimeNeed {
  def: RuntimeDef;
  version?: string;
}

/** The words of one command text, split at shell separators as gh-aw splits them. */
function commandWords(text: string): string[] {
  return text.split(/[|&;]+/).flatMap((command) => {
    const words = command.split(/[ \t]+/).filter(Boolean);
    // Package names given to a system package manager (`apt-get install python3`) are not commands run.
    const tool = words.find((w) => w !== "sudo" && !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
    return tool !== undefined && PACKAGE_MANAGERS.includes(tool) ? [] : words;
  });
}

/** System package managers whose arguments name packages, never runtimes the step runs. */
const PACKAGE_MANAGERS = ["apt-get", "apt", "yum", "dnf", "apk", "brew", "zypper", "pacman"];

/** Inputs of {@link detectRuntimes}. */
export interface RuntimeSources {
  /**
   * The workflow's and its imports' steps as the lock writes them. gh-aw reads only the text after `run:` on
   * each line holding it: a one-line script counts, a block script (`run: |`) is never read.
   */
  stepsText: string;
  /** MCP servers; only local ones (no container) are read, by their `command`. */
  mcpServers: Record<string, Record<string, unknown>>;
  /** Frontmatter `runtimes:` (`{ node: { version: "22" } }`). */
  runtimes: Frontmatter["runtimes"];
}

/** The runtimes the command text after one `run:` needs. */
function runtimesOfCommand(text: string, add: (def: RuntimeDef | undefined) => void): void {
  const words = commandWords(text);
  for (let i = 0; i + 1 < words.length; i++) {
    if (words[i].toLowerCase() === "gh" && words[i + 1].toLowerCase() === "aw") {
      add(GH_AW_RUNTIME);
      break;
    }
  }
  for (const w of words) {
    // `uv pip install` needs uv, not a separate pip.
    if ((w === "pip" || w === "pip3") && words.slice(0, words.indexOf(w)).includes("uv")) continue;
    add(BY_COMMAND.get(w));
  }
}

/** The runtimes a workflow needs, sorted by id. */
export function detectRuntimes(s: RuntimeSources): RuntimeNeed[] {
  const needs = new Map<string, RuntimeNeed>();
  const add = (def: RuntimeDef | undefined) => {
    if (def && !needs.has(def.id)) needs.set(def.id, { def });
  };
  for (const line of s.stepsText.split("\n")) {
    const at = line.indexOf("run:");
    if (at >= 0) runtimesOfCommand(line.slice(at + 4).trim(), add);
  }
  for (const server of Object.values(s.mcpServers)) {
    if (server.container !== undefined || server.type === "docker") continue;
    if (typeof server.command === "string") add(BY_COMMAND.get(server.command));
  }
  if (s.runtimes) {
    for (const [id, cfg] of Object.entries(s.runtimes)) {
      const def = RUNTIMES.find((r) => r.id === id);
      if (!def) continue;
      const version = cfg.version;
      needs.set(id, { def, version: version === undefined ? undefined : String(version) });
    }
  }
  // uv installs into a Python it does not provide.
  if (needs.has("uv")) add(RUNTIMES.find((r) => r.id === "python"));

  return [...needs.values()].sort((a, b) => a.def.id < b.def.id ? -1 : a.def.id > b.def.id ? 1 : 0);
}

/** What {@link dedupeUserSetupSteps} decided. */
export interface DedupedSetup {
  /** Per user step: whether it stays. */
  keep: boolean[];
  /** The runtimes gh-aw still sets up itself (those with a customised user step are left to it). */
  needs: RuntimeNeed[];
  /** Per runtime id, the `with:` inputs carried over from the user's removed setup steps. */
  carried: Record<string, Record<string, unknown>>;
}

/**
 * gh-aw's dedup of the user's own setup steps for a runtime it sets up: a step with no customisation is
 * dropped (its inputs other than the version carried into gh-aw's step); a customised one (another version
 * than gh-aw would set up, a Go input besides `go-version-file: go.mod`/`cache`, a Node `node-version-file`)
 * stays, and gh-aw then sets that runtime up no more.
 */
export function dedupeUserSetupSteps(needs: RuntimeNeed[], steps: unknown[]): DedupedSetup {
  const carried: Record<string, Record<string, unknown>> = {};
  const customised = new Set<string>();
  const keep = steps.map((step) => {
    const s = objectOf(step);
    const need = typeof s.uses === "string"
      ? needs.find((n) => (s.uses as string).includes(n.def.action))
      : undefined;
    if (!need) return true;
    const withs = mappingOf(s.with);
    if (Object.keys(withs).length === 0) return false;
    if (isCustomised(need, withs)) {
      customised.add(need.def.id);
      return true;
    }
    const own = carried[need.def.id] ??= {};
    for (const [k, v] of Object.entries(withs)) {
      if (k === need.def.versionField) continue;
      if (need.def.id === "go" && (k === "go-version-file" || k === "cache")) continue;
      own[k] = v;
    }
    return false;
  });
  return { keep, needs: needs.filter((n) => !customised.has(n.def.id)), carried };
}

function isCustomised(need: RuntimeNeed, withs: Record<string, unknown>): boolean {
  const { def, version } = need;
  if (def.id === "go") {
    if (Object.keys(withs).some((k) => k !== "go-version-file" && k !== "cache")) return true;
    const file = withs["go-version-file"];
    return typeof file === "string" && file !== "go.mod";
  }
  if (def.id === "node") {
    const file = withs["node-version-file"];
    if (typeof file === "string" && file.trim() !== "") return true;
  }
  if (!def.versionField || !(def.versionField in withs)) return false;
  const own = String(withs[def.versionField]);
  // Against the version gh-aw would set up: the one `runtimes:` asks for, else the runtime's default.
  const target = version ?? def.defaultVersion;
  return target === undefined || own !== target;
}

/** Options of {@link runtimeSetupSteps}. */
export interface RuntimeStepOptions {
  /** Pinned reference per setup action. */
  pins: Record<string, string>;
  /** Inputs taken over from the user's own setup steps, per runtime id. */
  carried?: Record<string, Record<string, unknown>>;
  /** Dev builds install `gh aw` from the checked-out source; releases through gh-aw's setup-cli action. */
  actionMode?: "dev" | "release";
}

/**
 * The setup steps of the needed runtimes: the version input first, then the runtime's own inputs and those
 * carried over from the user's setup step (which win), sorted by name, strings single-quoted as gh-aw writes.
 */
export function runtimeSetupSteps(needs: RuntimeNeed[], opts: RuntimeStepOptions): StepPlan[] {
  const steps: StepPlan[] = [];
  for (const { def, version } of needs) {
    if (def.id === GH_AW_RUNTIME.id) {
      steps.push(ghAwSetupStep(opts));
      continue;
    }
    const step: StepPlan = { name: `Setup ${def.name}`, uses: plain(opts.pins[def.action]) };
    const withs: Record<string, YValue> = {};
    const v = version ?? def.defaultVersion;
    if (def.versionField && v) withs[def.versionField] = sq(v);
    const extra: Record<string, YValue> = { ...def.extra };
    for (const [k, val] of Object.entries(opts.carried?.[def.id] ?? {})) {
      extra[k] = typeof val === "string" ? sq(val) : val as YValue;
    }
    for (const k of Object.keys(extra).sort()) withs[k] = extra[k];
    if (Object.keys(withs).length > 0) step.with = withs;
    steps.push(step);
    if (def.id === "go") {
      // The firewall's chroot does not inherit the runner's PATH setup; GOROOT tells the agent where Go is.
      steps.push({
        name: "Capture GOROOT for AWF chroot mode",
        run: plain('echo "GOROOT=$(go env GOROOT)" >> "$GITHUB_ENV"'),
      });
    }
  }
  return steps;
}

/** `gh aw` for the steps that run it: built from source in dev mode, the released CLI otherwise. */
function ghAwSetupStep(opts: RuntimeStepOptions): StepPlan {
  if (opts.actionMode !== "release") {
    return {
      name: "Build and install gh-aw CLI from source",
      run: lit("gh extension remove aw || true\nmake build\ngh extension install .\ngh aw version\n"),
      env: { GH_TOKEN: plain("${{ github.token }}") },
    };
  }
  return {
    name: "Install gh-aw extension",
    uses: plain(opts.pins[GH_AW_RUNTIME.action]),
    with: { version: sq(GH_AW_RUNTIME.actionVersion) },
  };
}
