/**
 * Encoder of AWS event-stream messages for the Bedrock stand-in, written independently of the gateway's
 * decoder (CRCs from node:zlib) so a decoder bug cannot hide behind a matching encoder bug.
 */
import { crc32 } from "node:zlib";

const encoder = new TextEncoder();

/** Encodes one message whose headers are all strings (type 7), as Bedrock sends them. */
export function encodeEventStreamMessage(headers: Record<string, string>, payload: Uint8Array): Uint8Array {
  const headerBytes: number[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const n = encoder.encode(name);
    const v = encoder.encode(value);
    headerBytes.push(n.length, ...n, 7, v.length >> 8, v.length & 0xff, ...v);
  }
  const total = 12 + headerBytes.length + payload.length + 4;
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  view.setUint32(0, total);
  view.setUint32(4, headerBytes.length);
  view.setUint32(8, crc32(out.subarray(0, 8)));
  out.set(headerBytes, 12);
  out.set(payload, 12 + headerBytes.length);
  view.setUint32(total - 4, crc32(out.subarray(0, total - 4)));
  return out;
}

/** An `event` message of type `eventType` with a JSON payload. */
export function eventMessage(eventType: string, value: unknown): Uint8Array {
  return encodeEventStreamMessage(
    { ":event-type": eventType, ":content-type": "application/json", ":message-type": "event" },
    encoder.encode(JSON.stringify(value)),
  );
}

/** An `exception` message (`throttlingException`, `validationException`, ...). */
export function exceptionMessage(exceptionType: string, message: string): Uint8Array {
  return encodeEventStreamMessage(
    { ":exception-type": exceptionType, ":content-type": "application/json", ":message-type": "exception" },
    encoder.encode(JSON.stringify({ message })),
  );
}

/** InvokeModelWithResponseStream's `chunk` event: an Anthropic stream event, base64 in `bytes`. */
export function invokeChunk(event: Record<string, unknown>): Uint8Array {
  const json = encoder.encode(JSON.stringify(event));
  let binary = "";
  for (const byte of json) binary += String.fromCharCode(byte);
  // `p` pads the payload to hide lengths, as Bedrock does.
  return eventMessage("chunk", { bytes: btoa(binary), p: "abcdefgh" });
}
