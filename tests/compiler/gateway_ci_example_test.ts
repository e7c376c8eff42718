/**
 * docs/examples/gateway-ci.md, the agentic workflow README shows for CI without secrets, compiles with awc:
 * the engine's base URL is the gateway, the gateway is in the firewall's allowed domains, the agent job may
 * mint an OIDC token, and the exchange step runs before the engine.
 */
import assert from "node:assert/strict";
import { parse } from "yaml";
import { compileOne } from "./helpers.ts";

type Step = { name?: string; id?: string; run?: string; env?: Record<string, string> };

Deno.test("awc compiles the gateway CI example with the gateway as the engine's base URL and allowed domain", async () => {
  const markdown = await Deno.readTextFile(new URL("../../docs/examples/gateway-ci.md", import.meta.url));
  const { lock } = await compileOne(markdown);
  const jobs = parse(lock).jobs as Record<string, { permissions?: Record<string, string>; steps: Step[] }>;
  const agent = jobs.agent;
  assert.equal(agent.permissions?.["id-token"], "write");
  const exchange = agent.steps.findIndex((s) => s.id === "gateway-credential");
  const engine = agent.steps.findIndex((s) => s.name?.startsWith("Execute Claude"));
  assert.ok(exchange >= 0 && engine > exchange, "the exchange step runs before the engine");
  assert.match(agent.steps[exchange].run!, /\/v1\/identity\/github-oidc/);
  const env = agent.steps[engine].env!;
  assert.equal(env.ANTHROPIC_BASE_URL, "https://gateway.example.com");
  assert.equal(env.ANTHROPIC_API_KEY, "${{ steps.gateway-credential.outputs.credential }}");
  assert.match(lock, /gateway\.example\.com/);
  assert.match(agent.steps[engine].run ?? "", /"allowDomains":\[[^\]]*"gateway\.example\.com"/);
  assert.equal(jobs.detection, undefined, "no AI review calling Anthropic with the placeholder secret");
});
