/**
 * The gateway's one credential check: API keys (`sy_…`) as before, gateway credentials from the GitHub OIDC
 * exchange (`syc_…`, principal `repo:<owner/name>`, the matching trust rule's policy), and otherwise, when an
 * OP is configured, the OP's access tokens (principal `user:<sub>`, the most specific stored policy). The
 * principal is the policy's `id`, so limits, budgets (Redis-shared as for keys), the ledger, logs and spans
 * all count and show it.
 */
import { GatewayError } from "../errors.ts";
import type { KeyPolicy } from "../limits/policy.ts";
import type { KeyCheck } from "../request_context.ts";
import { limitsOfSpec } from "./config.ts";
import { CREDENTIAL_PREFIX, CredentialSigner } from "./credential.ts";
import type { TrustRules } from "./github_oidc.ts";
import type { TokenIntrospector, UserIdentity } from "./introspection.ts";
import { applicablePolicy, type GrantedPolicy, type PolicySnapshot } from "./policy_store.ts";

/** What {@link identityCheck} combines. */
export interface IdentityCheckDeps {
  /** API keys. */
  keys: KeyCheck;
  /** OP access tokens and the policies of people (both or neither). */
  users?: { introspector: TokenIntrospector; policies: PolicySnapshot };
  /** Exchanged GitHub OIDC credentials: their signer's secret and the trust rules. */
  repos?: { secret: string; rules: TrustRules };
  /** The clock. */
  now?: () => number;
}

/** The policy of a person under a granted policy. */
function userPolicy(identity: UserIdentity, granted: GrantedPolicy): KeyPolicy {
  const policy: KeyPolicy = { id: `user:${identity.sub}`, admin: false };
  if (granted.limits) policy.limits = granted.limits;
  if (granted.models) policy.models = granted.models;
  return Object.freeze(policy);
}

/** A KeyCheck over API keys, OP access tokens and exchanged credentials. */
export function identityCheck(deps: IdentityCheckDeps): KeyCheck {
  const now = deps.now ?? Date.now;
  const signer = deps.repos && new CredentialSigner(deps.repos.secret);
  // One policy object per (identity, policies snapshot): a warm token allocates nothing.
  const memo = new WeakMap<UserIdentity, { from: ReadonlyMap<string, GrantedPolicy>; policy: KeyPolicy }>();

  const verifyUser = async (token: string): Promise<KeyPolicy | null> => {
    const { introspector, policies } = deps.users!;
    const identity = await introspector.verify(token);
    if (!identity) return null;
    const snapshot = await policies.current();
    const known = memo.get(identity);
    if (known && known.from === snapshot) return known.policy;
    const granted = applicablePolicy(snapshot, identity.sub, identity.groups);
    if (!granted) {
      throw new GatewayError(
        "permission_error",
        `no gateway policy admits user:${identity.sub}; an operator sets one with gateway:policies set`,
      );
    }
    const policy = userPolicy(identity, granted);
    memo.set(identity, { from: snapshot, policy });
    return policy;
  };

  const verifyRepo = (credential: string): KeyPolicy | null => {
    const claims = signer?.open(credential, now());
    if (!claims) return null;
    const rule = deps.repos!.rules.match(claims);
    if (!rule) return null;
    const { limits, models } = limitsOfSpec(rule.policy);
    const policy: KeyPolicy = { id: `repo:${claims.repository}`, admin: false, expiresAt: claims.exp * 1000 };
    if (limits) policy.limits = limits;
    if (models) policy.models = models;
    return policy;
  };

  return {
    verify(presented) {
      if (presented.startsWith("sy_")) return deps.keys.verify(presented);
      if (presented.startsWith(CREDENTIAL_PREFIX)) return Promise.resolve(verifyRepo(presented));
      return deps.users ? verifyUser(presented) : Promise.resolve(null);
    },
    verifyNow(presented) {
      return presented.startsWith("sy_") ? deps.keys.verifyNow?.(presented) : undefined;
    },
    async refresh() {
      await Promise.all([deps.keys.refresh?.(), deps.users?.policies.refresh()]);
    },
  };
}
