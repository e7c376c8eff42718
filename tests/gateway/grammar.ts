/**
 * An event-grammar checker for Anthropic SSE streams: what the official SDK's accumulator assumes and what
 * real Anthropic streams obey. Returns every violation found (empty means valid).
 */
import { collectSseEvents } from "@switchyard/lib/sse.ts";

const DELTA_FOR_BLOCK: Record<string, string[]> = {
  text: ["text_delta", "citations_delta"],
  tool_use: ["input_json_delta"],
  thinking: ["thinking_delta", "signature_delta"],
};

/** Result of checking one stream. */
export interface GrammarReport {
  /** Violations, in stream order. */
  violations: string[];
  /** How the stream ended. */
  ending: "message_stop" | "error" | "none";
  /** The events (name and parsed data). */
  events: Array<{ event: string; data: Record<string, unknown> }>;
}

/** Checks an SSE body. `translated` additionally requires a non-zero `message_start` input estimate. */
export async function checkGrammar(
  body: string,
  options: { translated?: boolean } = {},
): Promise<GrammarReport> {
  const violations: string[] = [];
  const events: GrammarReport["events"] = [];
  for (const raw of await collectSseEvents(body)) {
    if (!raw.event) {
      violations.push(`event without an event: line: ${raw.data.slice(0, 80)}`);
      continue;
    }
    let data: Record<string, unknown>;
    try {
      data = JSON.parse(raw.data);
    } catch {
      violations.push(`${raw.event}: data is not JSON`);
      continue;
    }
    if (data.type !== raw.event) violations.push(`${raw.event}: data.type is ${JSON.stringify(data.type)}`);
    events.push({ event: raw.event, data });
  }
  let started = false;
  let nextIndex = 0;
  let open: { index: number; type: string; json: string } | null = null;
  let finalDelta = false;
  let ending: GrammarReport["ending"] = "none";
  for (const { event, data } of events) {
    if (ending !== "none") {
      violations.push(`${event} after the stream ended with ${ending}`);
      continue;
    }
    if (event === "ping") continue;
    if (event === "error") {
      ending = "error";
      const error = data.error as { type?: unknown; message?: unknown } | undefined;
      if (typeof error?.type !== "string" || typeof error?.message !== "string") {
        violations.push("error event without error.type and error.message");
      }
      continue;
    }
    if (event === "message_start") {
      if (started) violations.push("second message_start");
      started = true;
      const message = data.message as Record<string, unknown>;
      const usage = message?.usage as Record<string, unknown> | undefined;
      if (!usage || typeof usage !== "object") violations.push("message_start without a usage object");
      else if (options.translated && !((usage.input_tokens as number) > 0)) {
        violations.push("message_start usage.input_tokens is not a positive estimate");
      }
      if (message?.stop_reason !== null) violations.push("message_start stop_reason is not null");
      continue;
    }
    if (!started) {
      violations.push(`${event} before message_start`);
      continue;
    }
    if (event === "content_block_start") {
      if (open) violations.push(`block ${data.index} started while block ${open.index} is open`);
      if (data.index !== nextIndex) violations.push(`block index ${data.index}, expected ${nextIndex}`);
      if (finalDelta) violations.push("content_block_start after message_delta");
      const block = data.content_block as { type: string };
      open = { index: data.index as number, type: block.type, json: "" };
      nextIndex++;
    } else if (event === "content_block_delta") {
      const d = data.delta as { type: string; partial_json?: string };
      if (!open || open.index !== data.index) {
        violations.push(`delta for block ${data.index} which is not open`);
      } else if (!DELTA_FOR_BLOCK[open.type]?.includes(d.type)) {
        violations.push(`${d.type} inside a ${open.type} block`);
      } else if (d.type === "input_json_delta") open.json += d.partial_json ?? "";
    } else if (event === "content_block_stop") {
      if (!open || open.index !== data.index) {
        violations.push(`stop for block ${data.index} which is not open`);
      } else if (open.type === "tool_use") {
        try {
          const value = JSON.parse(open.json || "{}");
          if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error();
        } catch {
          violations.push(`tool_use block ${open.index} arguments are not a JSON object: ${open.json}`);
        }
      }
      open = null;
    } else if (event === "message_delta") {
      if (open) violations.push(`message_delta while block ${open.index} is open`);
      if (finalDelta) violations.push("second message_delta");
      finalDelta = true;
      const d = data.delta as { stop_reason?: unknown };
      if (typeof d?.stop_reason !== "string") violations.push("message_delta without a stop_reason");
      const usage = data.usage as { output_tokens?: unknown } | undefined;
      if (typeof usage?.output_tokens !== "number") {
        violations.push("message_delta without usage.output_tokens");
      }
    } else if (event === "message_stop") {
      if (!finalDelta) violations.push("message_stop without a message_delta");
      ending = "message_stop";
    } else {
      violations.push(`unknown event ${event}`);
    }
  }
  if (ending === "none") violations.push("stream ended without message_stop or error");
  return { violations, ending, events };
}
