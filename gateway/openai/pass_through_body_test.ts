import assert from "node:assert/strict";
import type { OpenAiQuirks, ProviderSettings } from "../providers/contract.ts";
import { OPENAI_QUIRKS } from "../providers/openai.ts";
import { OPENAI_COMPATIBLE_QUIRKS } from "../providers/presets.ts";
import { type OpenAiFormat, rebuiltBody, splicedBody } from "./pass_through.ts";

const settings = (quirks: OpenAiQuirks): ProviderSettings => ({
  name: "up",
  kind: "openai",
  baseUrl: "http://127.0.0.1:1/v1",
  quirks,
});
const openai = settings(OPENAI_QUIRKS);
const compatible = settings(OPENAI_COMPATIBLE_QUIRKS);
const noStreamOptions = settings({ ...OPENAI_COMPATIBLE_QUIRKS, streamOptions: false });
const dropsTemperature = settings({ ...OPENAI_QUIRKS, unsupportedParams: { temperature: "drop" } });
const message = [{ role: "user", content: 'say "hi" \u00e9 \\n' }];

/** The spliced body, checked to mean exactly what the rebuilt one means. */
function spliced(s: ProviderSettings, format: OpenAiFormat, text: string, model: string): string | undefined {
  const json = JSON.parse(text);
  const out = splicedBody(s, format, { text, json }, model);
  if (out !== undefined) assert.deepEqual(JSON.parse(out), rebuiltBody(s, format, json, model));
  return out;
}

Deno.test("a pass-through body differing in model alone is the client's text with the model spliced in", () => {
  // Spacing, key order and number spelling (an integer past 2^53) stay as the client wrote them.
  const text = `{ "model" : "openai/gpt-x", "messages": ${
    JSON.stringify(message)
  }, "max_completion_tokens": 9007199254740993, "seed": 1e3 }`;
  assert.equal(
    spliced(openai, "chat", text, "gpt-x"),
    text.replace('"openai/gpt-x"', '"gpt-x"'),
  );
  // The same model: the text itself.
  const same = JSON.stringify({ model: "gpt-x", messages: message, max_completion_tokens: 5 });
  assert.equal(spliced(openai, "chat", same, "gpt-x"), same);
  // A model name that needs escaping is written as JSON.
  assert.equal(JSON.parse(spliced(openai, "chat", same, 'a"b')!).model, 'a"b');
  // A stream whose usage option already asks for usage; a server without stream options and none sent.
  const stream = { model: "m", messages: message, stream: true };
  assert.ok(
    spliced(compatible, "chat", JSON.stringify({ ...stream, stream_options: { include_usage: true } }), "u"),
  );
  assert.ok(spliced(noStreamOptions, "chat", JSON.stringify(stream), "u"));
  // Responses with store already false.
  assert.ok(spliced(openai, "responses", JSON.stringify({ model: "m", input: "hi", store: false }), "u"));
});

Deno.test("a pass-through body that must change beyond its model is rebuilt, not spliced", () => {
  const base = { model: "m", messages: message };
  const cases: Array<[ProviderSettings, OpenAiFormat, Record<string, unknown>]> = [
    [openai, "chat", { ...base, max_tokens: 5 }], // renamed to max_completion_tokens
    [compatible, "chat", { ...base, max_completion_tokens: 5 }], // renamed to max_tokens
    [openai, "chat", { ...base, max_completion_tokens: null }], // a null limit is dropped
    [openai, "chat", { ...base, max_tokens: 5, max_completion_tokens: 6 }],
    [dropsTemperature, "chat", { ...base, temperature: 0.5 }],
    [dropsTemperature, "chat", { ...base, temperature: null }],
    [compatible, "chat", { ...base, stream: true }], // include_usage added
    [compatible, "chat", { ...base, stream: true, stream_options: { include_usage: false } }],
    [compatible, "chat", { ...base, stream: true, stream_options: null }],
    [noStreamOptions, "chat", { ...base, stream: true, stream_options: { include_usage: true } }],
    [openai, "responses", { model: "m", input: "hi" }], // store: false added
    [openai, "responses", { model: "m", input: "hi", store: true }],
  ];
  for (const [s, format, json] of cases) {
    assert.equal(
      splicedBody(s, format, { text: JSON.stringify(json), json }, "u"),
      undefined,
      JSON.stringify(json),
    );
  }
  // A text the scan is unsure of (an escaped key) is rebuilt too.
  const text = '{"mod\\u0065l":"m","messages":[{"role":"user","content":"x"}]}';
  assert.equal(splicedBody(openai, "chat", { text, json: JSON.parse(text) }, "u"), undefined);
});
