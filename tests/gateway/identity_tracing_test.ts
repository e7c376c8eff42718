/**
 * The gateway's real entry (gateway/main.ts, as a process with Deno's OTLP exporter) wires the identities from
 * its environment: a credential exchanged for a GitHub OIDC token (stand-in issuer on loopback) is accepted,
 * and the request's span carries the principal (`gw.principal`) and never the token or the credential.
 */
import assert from "node:assert/strict";
import { spawnGateway } from "./gateway_process.ts";
import { startHarness } from "./harness.ts";
import { startOtlpReceiver } from "./otlp_receiver.ts";
import { startGithubIssuer } from "./github_oidc_stand_in.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };

Deno.test(
  "the gateway process exchanges a GitHub OIDC token and its span carries repo:<owner/name>, no secret",
  e2e,
  async () => {
    const receiver = await startOtlpReceiver();
    const gh = await startGithubIssuer("https://gateway.test");
    const h = await startHarness();
    const gateway = await spawnGateway({
      ...h.env,
      OTEL_DENO: "true",
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_SERVICE_NAME: "switchyard-gateway-identity-test",
      OTEL_BSP_SCHEDULE_DELAY: "100",
      GATEWAY_IDENTITY_SECRET: "z".repeat(40),
      GATEWAY_GITHUB_OIDC: JSON.stringify({
        issuer: gh.issuer,
        audience: "https://gateway.test",
        rules: [{ repository: "acme/widgets" }],
      }),
    });
    try {
      const ghToken = await gh.mint();
      const exchanged = await fetch(`${gateway.url}/v1/identity/github-oidc`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ token: ghToken }),
      });
      assert.equal(exchanged.status, 200);
      const { credential } = await exchanged.json();
      const traceId = "trace-identity-principal";
      const response = await fetch(`${gateway.url}/v1/messages`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          authorization: `Bearer ${credential}`,
          "gw-trace-id": traceId,
        },
        body: JSON.stringify({
          model: "openai/fx-text",
          max_tokens: 32,
          messages: [{ role: "user", content: "Hi" }],
        }),
      });
      assert.equal(response.status, 200, await response.text());
      const request = (s: { name: string; attributes: Record<string, unknown> }) =>
        s.attributes["gw.trace_id"] === traceId && s.name.startsWith("messages ");
      await receiver.waitFor((spans) => spans.some(request));
      const span = receiver.spans.find(request)!;
      assert.equal(span.attributes["gw.principal"], "repo:acme/widgets", JSON.stringify(span));
      assert.equal(span.attributes["gw.key_id"], "repo:acme/widgets");
      const bodies = receiver.bodies.join("\n");
      assert.ok(!bodies.includes(credential.slice(4, 40)) && !bodies.includes(ghToken.slice(-40)));
    } finally {
      await gateway.stop();
      await h.close();
      await gh.close();
      await receiver.close();
    }
  },
);
