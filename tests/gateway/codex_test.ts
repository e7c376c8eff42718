/**
 * Codex CLI itself as a client of the Responses endpoint: the real CLI (pinned, from npm) runs `codex exec`
 * against the gateway's `/openai/v1`, on a Claude lane (the Anthropic stand-in) and a Gemini lane. Each
 * stand-in answers as a scripted coding model: a call of Codex's shell tool (`exec_command`) for the command
 * the prompt asks for, then, once the tool's output comes back in that provider's wire format, text quoting
 * it. Each run must leave the command's file behind, end with the quoted output as Codex's last message, get
 * only successful answers, and send nothing anywhere but loopback (a trap proxy records any attempt).
 * Skipped, saying why, only when the CLI cannot run here (no node, npm cannot install it, no binary).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type CodexRun, obtainCodex, runCodex } from "./codex_cli.ts";
import { type EgressTrap, startEgressTrap } from "./egress_trap.ts";
import { type FaultyGateway, startFaultyGateway } from "./faulty.ts";
import { type Answer, anthropicEvents } from "./upstreams/cloud_answers.ts";
import { type AgentView, anthropicView, geminiFixture, geminiView } from "./upstreams/agent_script.ts";
import { startAnthropicMock } from "./upstreams/anthropic_mock.ts";
import { startGeminiMock } from "./upstreams/gemini_mock.ts";
import type { MockUpstream, RecordedRequest } from "./upstreams/mock_server.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const cli = await obtainCodex();
if ("unavailable" in cli) console.warn(`codex_test skipped: ${cli.unavailable}`);
const launcher = "launcher" in cli ? cli.launcher : "";

const SHELL_TOOL = "exec_command";
const COMMAND_LINE = /^\$ (.+)$/m;

/** The scripted coding model: quote a tool result, else call the shell tool for the `$ command` line. */
function decide(view: AgentView): Answer {
  if (view.toolResult !== undefined) return { kind: "text", parts: ["Tool said: ", view.toolResult] };
  const command = COMMAND_LINE.exec(view.prompt)?.[1];
  if (command && view.tools.includes(SHELL_TOOL)) {
    const args = JSON.stringify({ cmd: command });
    const cut = Math.floor(args.length / 2);
    return {
      kind: "tool",
      id: "toolu_codex_1",
      name: SHELL_TOOL,
      args: [args.slice(0, cut), args.slice(cut)],
    };
  }
  return { kind: "text", parts: ["I was not asked to run anything."] };
}

interface Lane {
  name: string;
  model: string;
  upstream: MockUpstream;
  view(request: RecordedRequest): AgentView | undefined;
}

function describe(run: CodexRun, gateway: FaultyGateway, from: number): string {
  return `exit ${run.code}\nlast: ${run.lastMessage}\nstdout: ${run.stdout.slice(-2_000)}\nstderr: ${
    run.stderr.slice(-3_000)
  }\ngateway:\n${gateway.logs.slice(from).join("\n").slice(-4_000)}`;
}

async function runLane(gateway: FaultyGateway, trap: EgressTrap, lane: Lane): Promise<void> {
  const before = lane.upstream.requests.length;
  const logsBefore = gateway.logs.length;
  const work = await Deno.makeTempDir({ prefix: "codex-" });
  const cwd = join(work, "project");
  const home = join(work, "home");
  await Deno.mkdir(cwd);
  await Deno.mkdir(home);
  const token = `switchyard-${crypto.randomUUID().slice(0, 8)}`;
  try {
    const run = await runCodex({
      launcher,
      baseUrl: `${gateway.url}/openai/v1`,
      apiKey: gateway.key,
      model: lane.model,
      prompt: `Run this shell command, then tell me what it printed.\n$ echo ${token} | tee out.txt`,
      cwd,
      home,
      proxyUrl: trap.url,
    });
    const detail = describe(run, gateway, logsBefore);
    assert.equal(run.code, 0, detail);
    assert.equal(
      await Deno.readTextFile(join(cwd, "out.txt")),
      `${token}\n`,
      `Codex ran the command\n${detail}`,
    );
    assert.ok(run.lastMessage?.startsWith("Tool said: "), detail);
    assert.ok(run.lastMessage?.includes(token), `the tool's output came back to the model\n${detail}`);

    const views = lane.upstream.requests.slice(before).map(lane.view).filter((v) => v !== undefined);
    assert.ok(views.some((v) => v.toolResult === undefined && v.tools.includes(SHELL_TOOL)), detail);
    const answered = views.find((v) => v.toolResult !== undefined);
    assert.ok(
      answered?.toolResult?.includes(token),
      "the upstream received the tool output in its own format",
    );
    assert.ok(answered);
    assert.ok(answered.callIds.includes(answered.toolResultFor!), "the result answers the call made");

    const lines = gateway.logs.slice(logsBefore).map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.msg === "request");
    assert.ok(lines.length >= 2, "both turns went through the gateway");
    for (const line of lines) {
      assert.equal(line.path, "/openai/v1/responses");
      assert.ok(Number(line.status) < 400 && line.outcome === "completed", JSON.stringify(line));
    }
    assert.deepEqual(trap.attempts, [], "nothing tried to leave loopback");
  } finally {
    await Deno.remove(work, { recursive: true }).catch(() => {});
  }
}

Deno.test({
  name: "Codex CLI runs a shell tool round trip through the Responses endpoint on a Claude and a Gemini lane",
  ignore: "unavailable" in cli,
  ...e2e,
  fn: async (t) => {
    const anthropic = await startAnthropicMock({
      "claude-codex": (r) => ({
        events: anthropicEvents(decide(anthropicView(r.body)), String(r.body.model))
          .map((event) => [String(event.type), event]),
      }),
    }, "sk-ant-codex");
    const gemini = await startGeminiMock(
      { "gemini-codex": (r) => geminiFixture(decide(geminiView(r.body))) },
      "g-codex",
    );
    const gateway = await startFaultyGateway({
      ANTHROPIC_API_KEY: "sk-ant-codex",
      ANTHROPIC_BASE_URL: anthropic.url,
      GEMINI_API_KEY: "g-codex",
      GEMINI_BASE_URL: gemini.url,
      GATEWAY_PING_INTERVAL_MS: "1000",
    });
    const trap = startEgressTrap();
    const lanes: Lane[] = [
      {
        name: "claude (Anthropic)",
        model: "claude-codex",
        upstream: anthropic,
        view: (r) => /^\/v1\/messages(\?|$)/.test(r.path) ? anthropicView(r.body) : undefined,
      },
      {
        name: "gemini",
        model: "gemini/gemini-codex",
        upstream: gemini,
        view: (r) => /GenerateContent/i.test(r.path) ? geminiView(r.body) : undefined,
      },
    ];
    try {
      for (const lane of lanes) await t.step(lane.name, () => runLane(gateway, trap, lane));
    } finally {
      await trap.close();
      await gateway.close();
      await Promise.all([anthropic.close(), gemini.close()]);
    }
  },
});
