/**
 * InvokeModelWithResponseStream → Anthropic SSE: each event-stream `chunk` carries, base64 in `bytes`, one
 * native Anthropic stream event as JSON, relayed by the pass-through relay (anthropic.ts). Bedrock adds
 * `amazon-bedrock-invocationMetrics` to the last event; it is dropped rather than shown to clients.
 */
import type { SseEvent } from "@switchyard/lib/sse.ts";
import type { StreamTranslator } from "../messages/stream_pipe.ts";
import type { AnthropicEventWriter } from "../messages/stream_writer.ts";
import { AnthropicRelay } from "./anthropic.ts";
import { type EventStreamException, EXCEPTION_EVENT } from "./aws_event_stream.ts";
import { errorTypeOfException } from "./bedrock_errors.ts";

const utf8 = new TextDecoder();

function decodeBase64(text: string): string {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return utf8.decode(bytes);
}

/** Streaming translator for InvokeModelWithResponseStream of an Anthropic model. */
export class InvokeStreamTranslator implements StreamTranslator {
  #provider: string;
  #relay: AnthropicRelay;

  /** `provider` names the upstream in errors; `model` is echoed to the client. */
  constructor(provider: string, model: string) {
    this.#provider = provider;
    this.#relay = new AnthropicRelay(provider, model);
  }

  /** Unwraps one `chunk` (or maps an exception) and relays it. */
  onEvent(event: SseEvent, writer: AnthropicEventWriter): void {
    if (event.event === EXCEPTION_EVENT) {
      const { exceptionType, message } = JSON.parse(event.data) as EventStreamException;
      return writer.error(
        errorTypeOfException(exceptionType),
        `upstream provider ${this.#provider} failed: ${exceptionType}${
          message ? `: ${message.slice(0, 500)}` : ""
        }`,
      );
    }
    if (event.event !== "chunk") return;
    const { bytes } = JSON.parse(event.data) as { bytes?: unknown };
    if (typeof bytes !== "string") throw new TypeError("a chunk without bytes");
    const data = JSON.parse(decodeBase64(bytes)) as Record<string, unknown>;
    delete data["amazon-bedrock-invocationMetrics"];
    if (typeof data.type !== "string") throw new TypeError("a chunk without an event type");
    this.#relay.onEvent({ event: data.type, data: JSON.stringify(data) }, writer);
  }

  /** A stream without `message_stop` is an error. */
  onEnd(writer: AnthropicEventWriter): void {
    this.#relay.onEnd(writer);
  }
}
