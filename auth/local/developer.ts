/**
 * The one-click developer account of local mode: a Better Auth plugin with one endpoint that signs in the
 * user `local-developer` (created on first use). Registered only in local mode. Because it sets the session
 * cookie, the OAuth provider's `after` hook resumes a pending authorization when the body carries the
 * signed `oauth_query`.
 */
import type { BetterAuthPlugin } from "better-auth";
import { createAuthEndpoint } from "better-auth/api";
import { setSessionCookie } from "better-auth/cookies";
import { z } from "zod";

/** The fixed id of the developer account. */
const LOCAL_DEVELOPER_ID = "local-developer";

/** Path of the sign-in endpoint under `/api/auth`. */
export const LOCAL_DEVELOPER_SIGN_IN_PATH = "/local-developer/sign-in";

/** The plugin. */
export function localDeveloper() {
  return {
    id: "local-developer",
    endpoints: {
      localDeveloperSignIn: createAuthEndpoint(LOCAL_DEVELOPER_SIGN_IN_PATH, {
        method: "POST",
        body: z.object({ oauth_query: z.string().optional() }).optional(),
      }, async (ctx) => {
        const adapter = ctx.context.internalAdapter;
        let user = await adapter.findUserById(LOCAL_DEVELOPER_ID);
        if (!user) {
          user = await adapter.createUser({
            id: LOCAL_DEVELOPER_ID,
            name: "Local Developer",
            email: "developer@localhost.test",
            emailVerified: true,
          });
          await adapter.createAccount({ userId: user.id, providerId: "local-developer", accountId: user.id });
        }
        const session = await adapter.createSession(user.id);
        await setSessionCookie(ctx, { session, user });
        return ctx.json({ user: { id: user.id, name: user.name, email: user.email } });
      }),
    },
  } satisfies BetterAuthPlugin;
}
