import { assertEquals } from "../test_assert.ts";
import { otlpEnv } from "./workflow_values.ts";

const sentry = { url: "https://o1.ingest.sentry.io/otlp", headers: { Authorization: "${{ secrets.S }}" } };
const grafana = { url: "https://otlp.grafana.net", headers: { Authorization: "${{ secrets.G }}" } };

Deno.test("one OTLP endpoint gets no combined header list", () => {
  const env = otlpEnv([sentry], "w", "W", "copilot");
  assertEquals(env.OTEL_EXPORTER_OTLP_HEADERS, "x-sentry-auth=${{ secrets.S }}");
  assertEquals("GH_AW_OTLP_ALL_HEADERS" in env, false);
});

Deno.test("several OTLP endpoints get every endpoint's headers in one list", () => {
  const env = otlpEnv([sentry, grafana], "w", "W", "copilot");
  assertEquals(env.GH_AW_OTLP_ALL_HEADERS, "x-sentry-auth=${{ secrets.S }},Authorization=${{ secrets.G }}");
});
