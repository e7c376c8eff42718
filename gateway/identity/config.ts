/**
 * The identity settings of the gateway: the suite's OP whose access tokens it accepts (validated by
 * introspection, cached for GATEWAY_IDENTITY_CACHE_MS), and the GitHub Actions OIDC trust rules
 * (GATEWAY_GITHUB_OIDC, JSON) under which a workflow exchanges its OIDC token for a short-lived gateway
 * credential signed with GATEWAY_IDENTITY_SECRET. Spread into the gateway's config schema; cross-key rules in
 * {@link identityProblems}.
 */
import { z } from "zod";
import type { ConfigProblem } from "@switchyard/lib/config.ts";
import type { KeyLimits } from "../limits/policy.ts";

/** GitHub's OIDC issuer for Actions. */
export const GITHUB_ACTIONS_ISSUER = "https://token.actions.githubusercontent.com";
/** The longest a gateway credential lives: a GitHub-hosted job runs at most 6 h. */
export const MAX_CREDENTIAL_SECONDS = 6 * 3600;

function positiveInt(defaultValue: number) {
  return z.string().default(String(defaultValue)).transform((raw, ctx) => {
    if (!/^\d+$/.test(raw) || Number(raw) < 1) {
      ctx.addIssue({ code: "custom", message: `expected a positive integer, got ${JSON.stringify(raw)}` });
      return z.NEVER;
    }
    return Number(raw);
  });
}

const positive = z.number().int().positive();

/** A policy as the trust rules and the policies store write it. */
export const policySpecSchema = z.strictObject({
  rpm: positive.optional(),
  tpm: positive.optional(),
  max_concurrency: positive.optional(),
  budget_usd: z.number().positive().optional(),
  budget_period: z.enum(["day", "month"]).optional(),
  models: z.array(z.string().min(1)).min(1).optional(),
}).refine((p) => (p.budget_usd === undefined) === (p.budget_period === undefined), {
  error: "budget_usd and budget_period go together",
});

/** A policy of the trust rules, as written. */
export type PolicySpec = z.output<typeof policySpecSchema>;

const glob = z.string().min(1).max(512);

/** One trust rule: every claim it names must match its glob; the policy applies to the repository. */
const ruleSchema = z.strictObject({
  repository: glob.optional(),
  repository_owner: glob.optional(),
  ref: glob.optional(),
  workflow_ref: glob.optional(),
  environment: glob.optional(),
  policy: policySpecSchema.default({}),
}).refine((r) => r.repository !== undefined || r.repository_owner !== undefined, {
  error: "a rule must name repository or repository_owner (a rule admitting every repository is refused)",
});

/** A trust rule, parsed. */
export type TrustRule = z.output<typeof ruleSchema>;

const trustSchema = z.strictObject({
  issuer: z.url({ protocol: /^https?$/ }).default(GITHUB_ACTIONS_ISSUER),
  audience: z.string().min(1),
  /** Where the issuer's keys are (default: discovered from the issuer). */
  jwks_uri: z.url({ protocol: /^https?$/ }).optional(),
  /** Longest credential issued, in seconds (at most 6 h). */
  max_ttl_seconds: z.number().int().min(60).max(MAX_CREDENTIAL_SECONDS).default(MAX_CREDENTIAL_SECONDS),
  rules: z.array(ruleSchema).min(1),
});

/** The GitHub Actions OIDC trust configuration. */
export type GithubOidcTrust = z.output<typeof trustSchema>;

/** Parses GATEWAY_GITHUB_OIDC (JSON); problems name the path of each bad field. */
export function parseGithubOidc(raw: string): { trust?: GithubOidcTrust; problems: string[] } {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    return { problems: [`is not valid JSON: ${(error as Error).message}`] };
  }
  const parsed = trustSchema.safeParse(json);
  if (parsed.success) return { trust: Object.freeze(parsed.data), problems: [] };
  return {
    problems: parsed.error.issues.map((i) => `${i.path.length ? i.path.join(".") + ": " : ""}${i.message}`),
  };
}

/** The environment keys of the identity settings (spread into the gateway's schema). */
export const identityConfigShape = {
  /** The suite's OP whose access tokens the gateway accepts; unset: API keys only. */
  GATEWAY_OIDC_ISSUER: z.url({ protocol: /^https?$/, error: "expected an http(s) issuer URL" }).optional(),
  /** The gateway's confidential client at the OP (introspection; the `aud` tokens must carry). */
  GATEWAY_OIDC_CLIENT_ID: z.string().min(1).optional(),
  /** Its secret (secret). */
  GATEWAY_OIDC_CLIENT_SECRET: z.string().min(1).optional(),
  /** Comma-separated client ids whose tokens are accepted (e.g. the `gateway:login` device client). */
  GATEWAY_OIDC_TOKEN_CLIENTS: z.string().optional(),
  /** How long an introspection answer is reused (revocation and user disable take effect within it). */
  GATEWAY_IDENTITY_CACHE_MS: positiveInt(30_000),
  /** Longest wait for the OP's introspection answer before it counts as unreachable. */
  GATEWAY_IDENTITY_TIMEOUT_MS: positiveInt(2_000),
  /** GitHub Actions OIDC trust rules (JSON); unset: no exchange endpoint. */
  GATEWAY_GITHUB_OIDC: z.string().optional(),
  /** Signs the gateway credentials of the exchange; the same on every instance (secret, ≥ 32 chars). */
  GATEWAY_IDENTITY_SECRET: z.string().min(32, { error: "must be at least 32 characters" }).optional(),
};

/** The identity keys as parsed. */
export interface IdentityEnv {
  GATEWAY_OIDC_ISSUER?: string;
  GATEWAY_OIDC_CLIENT_ID?: string;
  GATEWAY_OIDC_CLIENT_SECRET?: string;
  GATEWAY_OIDC_TOKEN_CLIENTS?: string;
  GATEWAY_IDENTITY_CACHE_MS: number;
  GATEWAY_IDENTITY_TIMEOUT_MS: number;
  GATEWAY_GITHUB_OIDC?: string;
  GATEWAY_IDENTITY_SECRET?: string;
}

/** Keys that must be set together, and a readable GATEWAY_GITHUB_OIDC. */
export function identityProblems(env: IdentityEnv): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  if (env.GATEWAY_OIDC_ISSUER) {
    for (const key of ["GATEWAY_OIDC_CLIENT_ID", "GATEWAY_OIDC_CLIENT_SECRET"] as const) {
      if (!env[key]) problems.push({ key, message: "is required with GATEWAY_OIDC_ISSUER (introspection)" });
    }
  }
  if (env.GATEWAY_GITHUB_OIDC) {
    for (const problem of parseGithubOidc(env.GATEWAY_GITHUB_OIDC).problems) {
      problems.push({ key: "GATEWAY_GITHUB_OIDC", message: problem });
    }
    if (!env.GATEWAY_IDENTITY_SECRET) {
      problems.push({
        key: "GATEWAY_IDENTITY_SECRET",
        message: "is required with GATEWAY_GITHUB_OIDC (it signs the exchanged credentials)",
      });
    }
  }
  return problems;
}

/** The limits, models of a policy spec, in the shape the limit enforcer reads. */
export function limitsOfSpec(spec: PolicySpec): { limits?: KeyLimits; models?: readonly string[] } {
  const limits: KeyLimits = {};
  if (spec.rpm !== undefined) limits.rpm = spec.rpm;
  if (spec.tpm !== undefined) limits.tpm = spec.tpm;
  if (spec.max_concurrency !== undefined) limits.maxConcurrency = spec.max_concurrency;
  if (spec.budget_usd !== undefined && spec.budget_period) {
    limits.budgetUsd = spec.budget_usd;
    limits.budgetPeriod = spec.budget_period;
  }
  return {
    limits: Object.keys(limits).length ? Object.freeze(limits) : undefined,
    models: spec.models && Object.freeze([...spec.models]),
  };
}
