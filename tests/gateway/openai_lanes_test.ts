/**
 * The `openai` SDK on every lane of the agent harness (Anthropic pass-through, OpenAI Chat Completions,
 * Responses, Gemini, a preset host, Bedrock InvokeModel and Converse, Vertex Claude and Gemini): a two-turn
 * tool round trip through Chat Completions (streamed) and through the Responses API (whole), each lane's
 * stand-in reading the conversation in its own wire format and answering as the scripted agent.
 */
import assert from "node:assert/strict";
import OpenAI from "openai";
import { startAgentHarness } from "./claude_code_harness.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const bash = {
  name: "Bash",
  description: "Run a shell command",
  parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
};

Deno.test("the openai SDK completes a tool round trip on every lane, in both formats", e2e, async (t) => {
  const h = await startAgentHarness();
  const client = new OpenAI({ apiKey: h.gateway.key, baseURL: `${h.gateway.url}/openai/v1`, maxRetries: 0 });
  const prompt = "Run it.\n$ echo lane";
  try {
    for (const lane of h.lanes) {
      await t.step(`${lane.name}: chat completions, streamed`, async () => {
        const first = await client.chat.completions.create({
          model: lane.model,
          messages: [{ role: "user", content: prompt }],
          tools: [{ type: "function", function: bash }],
          stream: true,
        });
        let id = "";
        let name = "";
        let args = "";
        let finish: string | null = null;
        for await (const chunk of first) {
          const call = chunk.choices[0]?.delta?.tool_calls?.[0];
          id ||= call?.id ?? "";
          name ||= call?.function?.name ?? "";
          args += call?.function?.arguments ?? "";
          finish = chunk.choices[0]?.finish_reason ?? finish;
        }
        assert.equal(finish, "tool_calls");
        assert.equal(name, "Bash");
        assert.equal(JSON.parse(args).command, "echo lane");
        const second = await client.chat.completions.create({
          model: lane.model,
          messages: [
            { role: "user", content: prompt },
            {
              role: "assistant",
              content: null,
              tool_calls: [{ id, type: "function", function: { name, arguments: args } }],
            },
            { role: "tool", tool_call_id: id, content: "lane-output" },
          ],
          tools: [{ type: "function", function: bash }],
          stream: true,
        });
        let text = "";
        for await (const chunk of second) text += chunk.choices[0]?.delta?.content ?? "";
        assert.equal(text, "Tool said: lane-output");
      });
      await t.step(`${lane.name}: responses, whole`, async () => {
        const tools = [{ type: "function" as const, ...bash, strict: false }];
        // Input as items (the Responses stand-in reads items; a string input is passed through as it is).
        const first = await client.responses.create({
          model: lane.model,
          input: [{ role: "user", content: prompt }],
          tools,
        });
        const call = first.output.find((item) => item.type === "function_call");
        assert.ok(call?.type === "function_call", JSON.stringify(first.output));
        assert.equal(JSON.parse(call.arguments).command, "echo lane");
        const second = await client.responses.create({
          model: lane.model,
          input: [
            { role: "user", content: prompt },
            ...(first.output as OpenAI.Responses.ResponseInputItem[]),
            { type: "function_call_output", call_id: call.call_id, output: "lane-output" },
          ],
          tools,
        });
        assert.equal(second.output_text, "Tool said: lane-output");
      });
    }
  } finally {
    await h.close();
  }
});
