/**
 * The OpenAI Agents SDK (pinned) as a client of the Responses endpoint: an agent with one function tool holds
 * a two-turn conversation (each turn a tool call, the tool's result, and an answer quoting it) on a Claude
 * lane, a Gemini lane and the Responses pass-through lane of the agent harness. Tracing (which would export
 * to OpenAI) is off; the SDK's client is an unchanged `openai` client with the gateway's base URL and key.
 */
import assert from "node:assert/strict";
import OpenAI from "openai";
import { Agent, run, setDefaultOpenAIClient, setOpenAIAPI, setTracingDisabled, tool } from "@openai/agents";
import { z } from "zod";
import { startAgentHarness } from "./claude_code_harness.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };

Deno.test(
  "an OpenAI Agents SDK agent holds a multi-turn tool conversation through the gateway",
  e2e,
  async (t) => {
    const h = await startAgentHarness();
    setTracingDisabled(true);
    setOpenAIAPI("responses");
    setDefaultOpenAIClient(
      new OpenAI({ apiKey: h.gateway.key, baseURL: `${h.gateway.url}/openai/v1`, maxRetries: 0 }),
    );
    try {
      for (const name of ["anthropic pass-through", "gemini", "openai-responses"]) {
        const lane = h.lanes.find((l) => l.name === name)!;
        await t.step(name, async () => {
          const commands: string[] = [];
          const bash = tool({
            name: "Bash",
            description: "Run a shell command and return its output",
            parameters: z.object({ command: z.string() }),
            execute: ({ command }) => {
              commands.push(command);
              return Promise.resolve(`output-${commands.length}`);
            },
          });
          const agent = new Agent({
            name: "operator",
            instructions: "Run what you are asked to.",
            tools: [bash],
            model: lane.model,
          });
          const first = await run(agent, "Please run it.\n$ echo first");
          assert.equal(first.finalOutput, "Tool said: output-1");
          const second = await run(agent, [...first.history, {
            role: "user",
            content: "Once more, please.",
          }]);
          assert.equal(second.finalOutput, "Tool said: output-2");
          assert.deepEqual(commands, ["echo first", "echo first"]);
          // The second turn's requests carried the first turn's prompt beside the new one and the new result.
          const views = lane.upstream.requests.map(lane.view).filter((v) => v !== undefined);
          const last = views.at(-1);
          assert.equal(last?.toolResult, "output-2", JSON.stringify(last));
          assert.match(last.prompt, /\$ echo first[\s\S]*Once more, please\./);
          assert.ok(last.callIds.includes(last.toolResultFor!));
        });
      }
    } finally {
      await h.close();
    }
  },
);
