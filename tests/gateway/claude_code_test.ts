/**
 * Claude Code itself as a client: the real CLI (pinned, from npm) runs `-p` against the gateway on every
 * lane. The lane's stand-in answers as a scripted agent: a Bash tool call for the command the prompt asks
 * for, then, once the tool result comes back in that provider's wire format, text quoting it. Each run
 * must leave the command's file behind, put the quoted result in Claude Code's JSON output, get only
 * successful answers from the gateway, and send nothing anywhere but loopback (a trap proxy records any
 * attempt). Skipped, saying why, only when the CLI cannot be obtained (no node, or npm cannot install it).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type ClaudeCodeRun, obtainClaudeCode, runClaudeCode } from "./claude_code_cli.ts";
import { type AgentHarness, type AgentLane, startAgentHarness } from "./claude_code_harness.ts";
import { type EgressTrap, startEgressTrap } from "./egress_trap.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const cli = await obtainClaudeCode();
if ("unavailable" in cli) console.warn(`claude_code_test skipped: ${cli.unavailable}`);
const wrapper = "wrapper" in cli ? cli.wrapper : "";

function describe(run: ClaudeCodeRun, gatewayLines: string[]): string {
  const said = run.result ? `result: ${run.result.result}` : `stdout: ${run.stdout.slice(-2_000)}`;
  return `exit ${run.code}\n${said}\nstderr: ${run.stderr.slice(-2_000)}\ngateway:\n${
    gatewayLines.join("\n").slice(-4_000)
  }`;
}

/** The gateway's access lines written since `from`. */
function accessLines(h: AgentHarness, from: number): Array<Record<string, unknown>> {
  return h.gateway.logs.slice(from).map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.msg === "request");
}

async function runLane(h: AgentHarness, trap: EgressTrap, lane: AgentLane): Promise<void> {
  const before = lane.upstream.requests.length;
  const logsBefore = h.gateway.logs.length;
  const work = await Deno.makeTempDir({ prefix: "claude-code-" });
  const cwd = join(work, "project");
  const home = join(work, "home");
  await Deno.mkdir(cwd);
  await Deno.mkdir(home);
  const token = `switchyard-${crypto.randomUUID().slice(0, 8)}`;
  try {
    const run = await runClaudeCode({
      wrapper,
      baseUrl: h.gateway.url,
      apiKey: h.gateway.key,
      model: lane.model,
      smallModel: lane.smallModel,
      prompt:
        `Run this shell command with the Bash tool, then tell me what it printed.\n$ echo ${token} | tee out.txt`,
      cwd,
      home,
      proxyUrl: trap.url,
    });
    const detail = describe(run, h.gateway.logs.slice(logsBefore));
    assert.equal(run.code, 0, detail);
    assert.equal(run.result?.is_error, false, detail);
    assert.equal(run.result?.subtype, "success", detail);
    assert.equal(run.result?.result, `Tool said: ${token}`, "the final text reached Claude Code's output");
    assert.equal(await Deno.readTextFile(join(cwd, "out.txt")), `${token}\n`, "Claude Code ran the command");

    const views = lane.upstream.requests.slice(before).map(lane.view).filter((v) => v !== undefined);
    const first = views.find((v) => v.toolResult === undefined && v.tools.includes("Bash"));
    assert.ok(first, "the upstream was asked with Claude Code's tools, Bash among them");
    const answered = views.find((v) => v.toolResult !== undefined);
    assert.ok(answered, "the upstream received the tool result in its own wire format");
    assert.equal(answered.toolResult, token);
    assert.ok(answered.callIds.includes(answered.toolResultFor!), "the result answers the call made");

    const lines = accessLines(h, logsBefore);
    assert.ok(lines.length >= 2, "both turns went through the gateway");
    for (const line of lines) {
      assert.ok(Number(line.status) < 400 && line.outcome !== "upstream_error", JSON.stringify(line));
    }
    assert.deepEqual(trap.attempts, [], "nothing tried to leave loopback");
  } finally {
    await Deno.remove(work, { recursive: true }).catch(() => {});
  }
}

/**
 * count_tokens with what Claude Code really sends: the first turn as the pass-through lane's stand-in
 * received it (the gateway forwards the client's bytes), replayed to every lane with Claude Code's betas.
 */
async function countOnEveryLane(h: AgentHarness): Promise<void> {
  const recorded = h.anthropic.requests.find((r) => /^\/v1\/messages(\?|$)/.test(r.path));
  assert.ok(recorded, "the pass-through lane recorded Claude Code's request");
  const { messages, system, tools, thinking } = recorded.body;
  for (const lane of h.lanes) {
    const response: Response = await fetch(`${h.gateway.url}/v1/messages/count_tokens?beta=true`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-api-key": h.gateway.key,
        "anthropic-version": "2023-06-01",
        "anthropic-beta": recorded.headers["anthropic-beta"] ?? "",
      },
      body: JSON.stringify({ model: lane.model, messages, system, tools, thinking }),
    });
    const text: string = await response.text();
    assert.equal(response.status, 200, `${lane.name}: ${text}`);
    assert.ok(JSON.parse(text).input_tokens > 0, `${lane.name}: ${text}`);
  }
}

Deno.test({
  name: "Claude Code runs a Bash tool round trip through the gateway on every lane",
  ignore: "unavailable" in cli,
  ...e2e,
  fn: async (t) => {
    const h = await startAgentHarness();
    const trap = startEgressTrap();
    try {
      for (const lane of h.lanes) await t.step(lane.name, () => runLane(h, trap, lane));
      await t.step("Claude Code's own request body is counted on every lane", () => countOnEveryLane(h));
    } finally {
      await trap.close();
      await h.close();
    }
  },
});
