/**
 * `sandbox.agent`: the AWF firewall release the agent runs in (`version`) and, per role, digest-pinned images
 * that replace the release's own (`images`: `agent`, `squid`, `api-proxy`, `cli-proxy`, `build-tools`).
 */
import { z } from "zod";
import { VERSIONS } from "../data/versions.ts";
import { objectOf } from "./values.ts";

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

/**
 * Reads `sandbox.agent` (already validated); without a version, the AWF release of the gh-aw release compiled
 * for (`defaultVersion`).
 */
export function firewallOf(sandbox: unknown, defaultVersion: string = VERSIONS.awf): Firewall {
  const cfg = objectOf(objectOf(sandbox).agent);
  const raw = typeof cfg.version === "string" ? cfg.version : undefined;
  const version = raw ? (raw.startsWith("v") ? raw : `v${raw}`) : defaultVersion;
  const images = cfg.images && typeof cfg.images === "object" ? cfg.images as Firewall["images"] : {};
  return { version, imageTag: version.slice(1), images };
}

/** The image of one firewall role: the pinned override, else the release's tagged image. */
export function firewallImage(fw: Firewall | undefined, role: (typeof FIREWALL_ROLES)[number]): string {
  return fw?.images[role] ?? firewallReleaseImage(fw, role);
}

/** The name AWF runs a role's image under: `ghcr.io/github/gh-aw-firewall/<role>:<release tag>`. */
export function firewallReleaseImage(
  fw: Firewall | undefined,
  role: (typeof FIREWALL_ROLES)[number],
): string {
  return `ghcr.io/github/gh-aw-firewall/${role}:${fw?.imageTag ?? VERSIONS.awfImageTag}`;
}

/**
 * The step that makes AWF run the pinned images: each digest-pinned image (already pulled, so its content
 * was verified against the digest) is tagged with the name AWF resolves for its role, and AWF runs with
 * `--skip-pull`, so the container started is the pinned one. Undefined when nothing is pinned.
 */
export function pinnedImagesStep(fw: Firewall | undefined): { name: string; run: string } | undefined {
  const roles = FIREWALL_ROLES.filter((r) => fw?.images[r]);
  if (roles.length === 0) return undefined;
  const lines = ["set -euo pipefail"];
  for (const role of roles) lines.push(`docker tag ${fw!.images[role]} ${firewallReleaseImage(fw, role)}`);
  return { name: "Use pinned firewall images", run: lines.join("\n") + "\n" };
}
