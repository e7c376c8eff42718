/**
 * The gateway's own work per request for the OpenAI-format endpoints beside the Messages API, without
 * sockets (as gateway_inprocess.ts): the real app called in-process, with an upstream that answers at once
 * with the bench mock's answers (echoing the model, so a Messages pass-through relays bytes as it does over
 * HTTP). The four lanes run interleaved request by request, so load from other jobs hits them alike; the
 * median per lane is reported. These are the most stable figures of the comparison on a shared machine.
 */
import { createGatewayApp } from "../gateway/app.ts";
import { readGatewayConfig } from "../gateway/config/mod.ts";
import { createLogger } from "@switchyard/lib/log.ts";
import { anthropicMessage, chatCompletion } from "./gateway_mock_answers.ts";

const echoingFetch = ((url: string, init: RequestInit) => {
  const model = String(JSON.parse(String(init.body)).model);
  const body = url.includes("/chat/") ? chatCompletion(model) : anthropicMessage(model);
  return Promise.resolve(new Response(body, { headers: { "content-type": "application/json" } }));
}) as unknown as typeof fetch;

/** One lane: a path and a body. */
export interface InProcessLane {
  /** The row's name. */
  name: string;
  /** The request path. */
  path: string;
  /** The request body. */
  body: string;
}

/** Median microseconds of the gateway's in-process work per lane, the lanes interleaved. */
export async function measureLanesInProcess(lanes: InProcessLane[], n: number): Promise<Map<string, number>> {
  const config = readGatewayConfig({ OPENAI_API_KEY: "k", ANTHROPIC_API_KEY: "k" });
  const app = createGatewayApp(config, {
    logger: createLogger({ level: "warn" }),
    keys: { verify: () => Promise.resolve({ id: "key_bench", admin: false }) },
    fetch: echoingFetch,
  });
  const times = lanes.map(() => [] as number[]);
  for (let i = 0; i < n + 300; i++) {
    for (const [index, lane] of lanes.entries()) {
      const t0 = performance.now();
      const response = await app.fetch(
        new Request(`http://gateway${lane.path}`, {
          method: "POST",
          headers: { "x-api-key": "k" },
          body: lane.body,
        }),
      );
      if (response.status !== 200) {
        throw new Error(`${lane.name}: ${response.status} ${await response.text()}`);
      }
      await response.arrayBuffer();
      if (i >= 300) times[index].push(performance.now() - t0);
    }
  }
  await app.close();
  return new Map(lanes.map((lane, index) => {
    const sorted = times[index].sort((a, b) => a - b);
    return [lane.name, sorted[Math.floor(sorted.length / 2)] * 1000];
  }));
}
