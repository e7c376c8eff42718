import { assert, assertEquals } from "../../test_assert.ts";
import { bashWildcard, effectiveTools, mergedMcpScripts, normalizeBash, shellArg } from "./engine_tools.ts";
import { awfConfigJson, awfScript } from "./awf_command.ts";

Deno.test("an absent bash tool means every command and an absent edit tool means enabled", () => {
  const t = effectiveTools({}, ["create-issue"]);
  assert(bashWildcard(t), "wildcard bash");
  assertEquals(t.edit, true);
  assertEquals(t.github, {});
});

Deno.test("a bash allowlist starts with the default read-only commands, without duplicates", () => {
  const t = effectiveTools({ bash: ["jq", "cat"] }, ["create-issue"]);
  const bash = t.bash as string[];
  assertEquals(bash.slice(-2), ["jq", "cat"]);
  assertEquals(bash.filter((c) => c === "cat").length, 1);
  assert(bash.includes("printf") && bash.includes("yq"), "defaults are added");
});

Deno.test("pull-request safe outputs add the git commands to a bash allowlist but not to a wildcard", () => {
  const listed = effectiveTools({ bash: ["ls"] }, ["create-pull-request"]).bash as string[];
  assert(listed.includes("git commit:*") && listed.includes("git status"), "git commands merged");
  const wild = effectiveTools({ bash: ["*"] }, ["create-pull-request"]);
  assert(bashWildcard(wild) && !(wild.bash as string[]).includes("git status"), "no git commands");
});

Deno.test("bash: true in the workflow itself wins over an imported allowlist", () => {
  const t = effectiveTools({ bash: ["ffmpeg"] }, [], { bash: true });
  assert(bashWildcard(t) && !(t.bash as string[]).includes("ffmpeg"), "wildcard replaces the list");
});

Deno.test("github: false removes the GitHub tool", () => {
  assert(!("github" in effectiveTools({ github: false }, [])), "github removed");
});

Deno.test("bash commands lose a trailing wildcard and arguments are single-quoted only when needed", () => {
  assertEquals(normalizeBash("jq *"), "jq");
  assertEquals(shellArg("--allow-tool"), "--allow-tool");
  assertEquals(shellArg("shell(cat)"), "'shell(cat)'");
  assertEquals(shellArg("it's"), "'it'\\''s'");
});

Deno.test("mcp-scripts merge across imports and stay undefined when nobody declares them", () => {
  assertEquals(mergedMcpScripts([{}, {}]), undefined);
  assertEquals(mergedMcpScripts([{ "mcp-scripts": { a: { run: "x" } } }, { "mcp-scripts": { b: {} } }]), {
    a: { run: "x" },
    b: {},
  });
});

Deno.test("the AWF config lists domains, API-proxy limits, model aliases and the container tag in order", () => {
  const c = JSON.parse(awfConfigJson({ allowDomains: ["github.com"], maxRuns: 7 }));
  assertEquals(Object.keys(c), ["$schema", "network", "apiProxy", "container"]);
  assertEquals(c.network, { allowDomains: ["github.com"] });
  assertEquals(Object.keys(c.apiProxy), [
    "enabled",
    "enableTokenSteering",
    "maxRuns",
    "maxEffectiveTokens",
    "models",
  ]);
  assertEquals(c.apiProxy.maxRuns, 7);
  assertEquals(c.apiProxy.maxEffectiveTokens, 25000000);
});

Deno.test("the AWF script sorts exclusions, adds CLI-proxy flags and escapes the engine command's quotes", () => {
  const s = awfScript({
    setup: ["touch /tmp/x"],
    config: { allowDomains: [] },
    extraArgs: [],
    tty: true,
    excludeEnv: ["B_KEY", "A_KEY", "B_KEY"],
    cliProxy: true,
    command: "echo 'hi'",
  });
  assert(s.endsWith(" 2>&1 | tee -a /tmp/gh-aw/agent-stdio.log\n"), "tees into the stdio log");
  assert(s.includes("--tty --env-all --exclude-env A_KEY --exclude-env B_KEY --log-level info"), s);
  assert(s.includes("--skip-pull --difc-proxy-host host.docker.internal:18443"), "CLI proxy flags");
  assert(s.includes(`-- /bin/bash -c 'echo '\\''hi'\\''' 2>&1`), "single quotes escaped");
  assertEquals(s.split("\n")[2], "touch /tmp/x");
});
