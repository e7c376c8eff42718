/**
 * Language runtimes the agent job sets up before anything else runs: detected from the commands the workflow's
 * own steps and local MCP servers run (`npx` → Node.js, `python3`/`pip` → Python, `uvx` → uv and Python,
 * `go` → Go...), overridden or added by frontmatter `runtimes:`. Each becomes one pinned `setup-*` step.
 */
import type { StepPlan } from "../types.ts";
import { plain, sq } from "../../yaml/writer.ts";

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
export const RUNTIMES: RuntimeDef[] = [
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

/** A runtime to set up, with the version asked for (undefined: the default). */
export interface RuntimeNeed {
  def: RuntimeDef;
  version?: string;
}

function commandWords(text: string): string[] {
  return text.split(/[|&;\n]+/).flatMap((command) => {
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
  /** The workflow's and its imports' steps (only `run:` commands are read). */
  steps: unknown[];
  /** MCP servers; only local ones (no container) are read, by their `command`. */
  mcpServers: Record<string, Record<string, unknown>>;
  /** Frontmatter `runtimes:` (`{ node: { version: "22" } }`). */
  runtimes: unknown;
}

/** The runtimes a workflow needs, sorted by id. */
export function detectRuntimes(s: RuntimeSources): RuntimeNeed[] {
  const needs = new Map<string, RuntimeNeed>();
  const add = (def: RuntimeDef | undefined) => {
    if (def && !needs.has(def.id)) needs.set(def.id, { def });
  };
  for (const step of s.steps) {
    const run = step && typeof step === "object" ? (step as Record<string, unknown>).run : undefined;
    if (typeof run !== "string") continue;
    const words = commandWords(run);
    words.forEach((w, i) => {
      // `uv pip install` needs uv, not a separate pip.
      if ((w === "pip" || w === "pip3") && words.slice(0, i).includes("uv")) return;
      add(BY_COMMAND.get(w));
    });
  }
  for (const server of Object.values(s.mcpServers)) {
    if (server.container !== undefined || server.type === "docker") continue;
    if (typeof server.command === "string") add(BY_COMMAND.get(server.command));
  }
  if (s.runtimes && typeof s.runtimes === "object" && !Array.isArray(s.runtimes)) {
    for (const [id, cfg] of Object.entries(s.runtimes as Record<string, unknown>)) {
      const def = RUNTIMES.find((r) => r.id === id);
      if (!def) continue;
      const version = cfg && typeof cfg === "object" ? (cfg as Record<string, unknown>).version : undefined;
      needs.set(id, { def, version: version === undefined ? undefined : String(version) });
    }
  }
  // uv installs into a Python it does not provide.
  if (needs.has("uv")) add(RUNTIMES.find((r) => r.id === "python"));

  return [...needs.values()].sort((a, b) => a.def.id.localeCompare(b.def.id));
}

/**
 * The user's own steps running a needed runtime's setup action: gh-aw drops them and carries their `with:`
 * inputs into its setup step. Returns the remaining steps and, per runtime id, the inputs carried over.
 */
export function absorbUserSetupSteps(
  needs: RuntimeNeed[],
  steps: unknown[],
): { steps: unknown[]; carried: Record<string, Record<string, unknown>> } {
  const carried: Record<string, Record<string, unknown>> = {};
  const kept = steps.filter((step) => {
    const uses = step && typeof step === "object" ? (step as Record<string, unknown>).uses : undefined;
    const need = typeof uses === "string"
      ? needs.find((n) => uses.startsWith(`${n.def.action}@`))
      : undefined;
    if (!need) return true;
    const withs = (step as Record<string, unknown>).with;
    carried[need.def.id] = { ...carried[need.def.id], ...(withs && typeof withs === "object" ? withs : {}) };
    return false;
  });
  return { steps: kept, carried };
}

/**
 * The setup steps of the needed runtimes; `pins` maps each action to its pinned reference, `carried` the
 * inputs taken over from the user's own setup steps (the version first, then the rest as written, quoted).
 */
export function runtimeSetupSteps(
  needs: RuntimeNeed[],
  pins: Record<string, string>,
  carried: Record<string, Record<string, unknown>> = {},
): StepPlan[] {
  const steps: StepPlan[] = [];
  for (const { def, version } of needs) {
    const step: StepPlan = { name: `Setup ${def.name}`, uses: plain(pins[def.action]) };
    const withs: Record<string, ReturnType<typeof sq> | string | boolean> = {};
    const own = carried[def.id] ?? {};
    const ownVersion = def.versionField ? own[def.versionField] : undefined;
    if (def.versionField) {
      withs[def.versionField] = sq(
        version ?? (ownVersion !== undefined ? String(ownVersion) : undefined) ?? def.defaultVersion ?? "",
      );
    }
    for (const [k, v] of Object.entries(own)) {
      if (k !== def.versionField) withs[k] = typeof v === "string" ? sq(v) : v as boolean;
    }
    for (const [k, v] of Object.entries(def.extra ?? {})) if (!(k in withs)) withs[k] = v;
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
