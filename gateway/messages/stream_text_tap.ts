/**
 * Collects the text of an Anthropic SSE stream as the client receives it, for traces that record content
 * (GATEWAY_TRACE_CONTENT=true only: the untraced path never decodes its own output). The bytes pass
 * through unchanged; `done` runs once when the client's copy ends, errors or is cancelled.
 */

/** `stream` unchanged, with every `text_delta`'s text appended to `text`. */
export function tapStreamText(
  stream: ReadableStream<Uint8Array>,
  text: string[],
  done: () => void,
): ReadableStream<Uint8Array> {
  const decoder = new TextDecoder();
  let pending = "";
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    done();
  };
  const scan = (chunk: string) => {
    pending += chunk;
    let newline = pending.indexOf("\n");
    while (newline >= 0) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      newline = pending.indexOf("\n");
      if (!line.startsWith("data:") || !line.includes('"text_delta"')) continue;
      try {
        const event = JSON.parse(line.slice(5)) as { delta?: { type?: string; text?: unknown } };
        if (event.delta?.type === "text_delta" && typeof event.delta.text === "string") {
          text.push(event.delta.text);
        }
      } catch {
        // not an event of ours to read: the client gets it unchanged either way
      }
    }
  };
  const reader = stream.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done: ended } = await reader.read();
        if (ended) {
          controller.close();
          finish();
          return;
        }
        scan(decoder.decode(value, { stream: true }));
        controller.enqueue(value);
      } catch (error) {
        controller.error(error);
        finish();
      }
    },
    async cancel(reason) {
      finish();
      await reader.cancel(reason);
    },
  });
}
