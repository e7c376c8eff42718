/**
 * The configuration of deployment groups (`deployments:` in GATEWAY_CONFIG) and the shape of one request's
 * order, as deployments.ts reads and answers them (re-exported there).
 */

/** How a group orders its deployments. */
export type Strategy = "weighted" | "least-busy" | "latency" | "round-robin";

/** One deployment of a group, as configured. */
export interface DeploymentSpec {
  /** `provider/model`. */
  target: string;
  /** Relative share under `weighted` (default 1). */
  weight?: number;
  /** Most requests per minute sent to it. */
  rpm?: number;
  /** Most input tokens (the gateway's estimate) per minute sent to it. */
  tpm?: number;
  /** Active health checks of this deployment (health_checks.ts), over the file's `health_checks`. */
  health_check?: HealthCheckSpec | false;
}

/** How a deployment is checked (health_checks.ts). */
export interface HealthCheckSpec {
  /** Milliseconds between checks. */
  interval_ms?: number;
  /** Longest wait for one check. */
  timeout_ms?: number;
  /** `request` (a one-token Messages request) or `models` (the provider's model list). */
  probe?: "request" | "models";
  /** Consecutive failed checks that take it out (one passing check brings it back). */
  unhealthy_after?: number;
}

/** One group, as configured. */
export interface GroupSpec {
  strategy?: Strategy;
  /** Cooldown after a 429 / 529 that states no `retry-after` (default {@link DEFAULT_COOLDOWN_MS}). */
  cooldown_ms?: number;
  targets: readonly DeploymentSpec[];
}

/** Cooldown of a deployment whose 429 / 529 states no delay. */
export const DEFAULT_COOLDOWN_MS = 5_000;
/** Weight of the newest sample in the latency EWMA. */
export const EWMA_ALPHA = 0.3;

/** Why a deployment was left out of a request's order. */
export type Skipped = {
  target: string;
  reason: "cooling_down" | "rpm_cap" | "tpm_cap" | "unhealthy";
  retryInMs: number;
};

/** The order of one request's deployments, and those left out. */
export interface Ordered {
  targets: string[];
  skipped: Skipped[];
}
