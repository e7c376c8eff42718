/**
 * `sandbox.agent`: the AWF firewall release the agent runs in (`version`) and, per role, digest-pinned images
 * that replace the release's own (`images`: `agent`, `squid`, `api-proxy`, `cli-proxy`, `build-tools`).
 */
import { z } from "zod";
import { VERSIONS } from "./jobs_common.ts";

/** Image roles of the firewall. */
export const FIREWALL_ROLES = ["agent", "squid", "api-proxy", "cli-proxy", "build-tools"] as const;

const DIGEST_PINNED = /^[\w./:-]+@sha256:[0-9a-f]{64}$/;

/** Schema of `sandbox` (string `agent` shorthands such as `awf` stay accepted). */
export const sandboxSchema = z.object({
  agent: z.union([
    z.string(),
    z.object({
      version: z.string().regex(/^v?\d+\.\d+\.\d+$/, {
        error: "sandbox.agent.version must look like v0.25.58",
      })
        .optional(),
      images: z.partialRecord(
        z.enum(FIREWALL_ROLES),
        z.string().regex(DIGEST_PINNED, {
          error: "each sandbox.agent.images entry must be pinned: image@sha256:<64 hex>",
        }),
      ).optional(),
    }).passthrough(),
  ]).optional(),
}).passthrough();

/** The firewall a workflow runs: release version (`vX.Y.Z`), its image tag, and per-role image overrides. */
export interface Firewall {
  version: string;
  imageTag: string;
  images: Partial<Record<(typeof FIREWALL_ROLES)[number], string>>;
}

/** Reads `sandbox.agent` (already validated); defaults to the release this compiler targets. */
export function firewallOf(sandbox: unknown): Firewall {
  const agent = sandbox && typeof sandbox === "object"
    ? (sandbox as Record<string, unknown>).agent
    : undefined;
  const cfg = agent && typeof agent === "object" ? agent as Record<string, unknown> : {};
  const raw = typeof cfg.version === "string" ? cfg.version : undefined;
  const version = raw ? (raw.startsWith("v") ? raw : `v${raw}`) : VERSIONS.awf;
  const images = cfg.images && typeof cfg.images === "object" ? cfg.images as Firewall["images"] : {};
  return { version, imageTag: version.slice(1), images };
}

/** The image of one firewall role: the pinned override, else the release's tagged image. */
export function firewallImage(fw: Firewall | undefined, role: (typeof FIREWALL_ROLES)[number]): string {
  return fw?.images[role] ?? `ghcr.io/github/gh-aw-firewall/${role}:${fw?.imageTag ?? VERSIONS.awfImageTag}`;
}
