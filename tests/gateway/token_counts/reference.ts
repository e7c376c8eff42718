/**
 * Regenerates `openai_counts.json`'s reference counts: `deno run --allow-read --allow-write
 * tests/gateway/token_counts/reference.ts`. It is independent of the code under test (gateway/messages/
 * openai_tokens.ts): OpenAI's own BPE (`tiktoken`, the Rust implementation compiled to WASM) instead of
 * gpt-tokenizer, and its own reading of what the gateway sends for an Anthropic request, counted by the
 * rules OpenAI published: the cookbook "How to count tokens with tiktoken" (§6 messages: 3 per message plus
 * role and content, 3 to prime the reply; §7 tools: 7 per function for o200k models, 10 for cl100k,
 * `name:description`, 3 per property list, 3 plus `key:type:description` per property, enum −3 plus 3 and
 * the value per item, 12 once) and the images guide's tile and patch rules, with two corrections measured
 * on the API (community.openai.com/t/1262691, prompt_tokens for a 128×64 image plus five words): patch
 * models bill one token more per image than the guide's rule, and o-series models prime the reply with 2
 * tokens, not 3. Entries whose source is `api` (counts OpenAI's API returned, as published) keep their
 * recorded value (a disagreement with these rules is printed); only `reference` entries are recomputed.
 */
import { get_encoding, type Tiktoken } from "tiktoken";

interface Entry {
  name: string;
  model: string;
  source: "api" | "reference";
  cite: string;
  request: Record<string, unknown>;
  images?: Array<{ width: number; height: number }>;
  expected: number;
}

const path = new URL("./openai_counts.json", import.meta.url);
const entries = JSON.parse(await Deno.readTextFile(path)) as Entry[];
const encodings = new Map<string, Tiktoken>();

function encodingFor(model: string): Tiktoken {
  const name = /^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|o\d)/.test(model) ? "o200k_base" : "cl100k_base";
  if (!encodings.has(name)) encodings.set(name, get_encoding(name));
  return encodings.get(name)!;
}

function imageCost(model: string, width: number, height: number): number {
  const patch = (multiplier: number) => {
    let patches = Math.ceil(width / 32) * Math.ceil(height / 32);
    if (patches > 1536) {
      const shrink = Math.sqrt(1536 * 1024 / (width * height));
      const across = Math.floor(width * shrink / 32);
      patches = across * Math.ceil(height * across / width - 1e-9);
    }
    return Math.ceil(patches * multiplier) + 1;
  };
  if (/^(gpt-4\.1-mini|gpt-5-mini)/.test(model)) return patch(1.62);
  if (/^(gpt-4\.1-nano|gpt-5-nano)/.test(model)) return patch(2.46);
  if (/^o4-mini/.test(model)) return patch(1.72);
  const [base, tile] = /^gpt-4o-mini/.test(model)
    ? [2833, 5667]
    : /^gpt-5/.test(model)
    ? [70, 140]
    : /^(o1|o3)/.test(model)
    ? [75, 150]
    : [85, 170];
  let w = width, h = height;
  if (Math.max(w, h) > 2048) {
    [w, h] = [w * 2048 / Math.max(width, height), h * 2048 / Math.max(width, height)];
  }
  if (Math.min(w, h) > 768) {
    const s = 768 / Math.min(w, h);
    [w, h] = [w * s, h * s];
  }
  return base + tile * Math.ceil(w / 512) * Math.ceil(h / 512);
}

type Block = Record<string, unknown>;
const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : (content as Block[] ?? []).filter((b) => b.type === "text").map((b) => b.text as string).join("\n");

function count(entry: Entry): number {
  const enc = encodingFor(entry.model);
  const n = (text: string) => enc.encode_ordinary(text).length;
  const request = entry.request;
  const images = [...(entry.images ?? [])];
  let total = /^o\d/.test(entry.model) ? 2 : 3;
  const message = (role: string, tokens: number) => (total += 3 + n(role) + tokens);
  if (request.system !== undefined && textOf(request.system)) message("system", n(textOf(request.system)));
  for (const m of request.messages as Array<{ role: string; content: unknown }>) {
    if (typeof m.content === "string") {
      message(m.role, n(m.content));
      continue;
    }
    const blocks = m.content as Block[];
    if (m.role === "assistant") {
      let tokens = n(blocks.filter((b) => b.type === "text").map((b) => b.text as string).join(""));
      for (const b of blocks.filter((b) => b.type === "tool_use")) {
        tokens += 3 + n(b.name as string) + n(JSON.stringify(b.input));
      }
      message("assistant", tokens);
      continue;
    }
    // Tool results become `tool` messages; their images move to the user message that follows them.
    const moved: Block[] = [];
    for (const b of blocks.filter((b) => b.type === "tool_result")) {
      message("tool", n((b.is_error ? "[tool error] " : "") + textOf(b.content)));
      if (Array.isArray(b.content)) moved.push(...(b.content as Block[]).filter((c) => c.type === "image"));
    }
    const rest = [...moved, ...blocks.filter((b) => b.type === "text" || b.type === "image")];
    if (!rest.length) continue;
    let tokens = 0;
    for (const b of rest) {
      if (b.type === "text") tokens += n(b.text as string);
      else {
        const size = images.shift()!;
        tokens += imageCost(entry.model, size.width, size.height);
      }
    }
    message("user", tokens);
  }
  const tools = (request.tools ?? []) as Array<{ name: string; description?: string; input_schema: Block }>;
  const trim = (s: unknown) => (typeof s === "string" ? (s.endsWith(".") ? s.slice(0, -1) : s) : "");
  for (const tool of tools) {
    total += (/^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|o\d)/.test(entry.model) ? 7 : 10) +
      n(`${tool.name}:${trim(tool.description)}`);
    const properties = Object.entries((tool.input_schema.properties ?? {}) as Record<string, Block>);
    if (properties.length) total += 3;
    for (const [key, p] of properties) {
      total += 3 + n(`${key}:${p.type}:${trim(p.description)}`);
      if (Array.isArray(p.enum)) total += -3 + p.enum.reduce((s: number, v) => s + 3 + n(String(v)), 0);
    }
  }
  if (tools.length) total += 12;
  return total;
}

for (const entry of entries) {
  if (entry.source !== "reference") {
    const computed = count(entry);
    if (computed !== entry.expected) {
      console.log(`${entry.name}: recorded ${entry.expected}, rules give ${computed}`);
    }
    continue;
  }
  entry.expected = count(entry);
}
await Deno.writeTextFile(path, JSON.stringify(entries, null, 2) + "\n");
console.log(`${entries.length} entries`);
