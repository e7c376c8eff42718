/**
 * Why a GitHub sign-in (or a membership re-validation) was refused: one table of stable codes and the plain
 * words the sign-in page shows for each. The page shows only these messages, looked up by code, never text
 * taken from the URL.
 */

/** Stable denial codes (also the audit log's `reason`). */
export const DENIAL_MESSAGES = {
  not_a_member:
    "Your GitHub account is not a member of the organisations or teams allowed to sign in here. " +
    "Ask an administrator to add you, then sign in again.",
  membership_pending:
    "Your invitation to the organisation is still pending. Accept it on GitHub, then sign in " +
    "again.",
  sso_required: "The organisation requires SAML single sign-on. Authorise this application for the " +
    "organisation on GitHub (sign in through your identity provider), then sign in again.",
  github_authorization_revoked:
    "GitHub no longer accepts this service's access to your account. Sign in again " +
    "to authorise it.",
  github_unavailable:
    "GitHub could not confirm your membership just now, so you were not signed in. Please " +
    "try again in a few minutes.",
  user_disabled: "This account has been disabled. Contact your administrator.",
} as const;

/** One of {@link DENIAL_MESSAGES}' codes. */
export type DenialReason = keyof typeof DENIAL_MESSAGES;

/** Other sign-in errors the page explains (GitHub's own `access_denied` when the user clicks Cancel). */
const OTHER_MESSAGES: Readonly<Record<string, string>> = {
  access_denied: "You cancelled the authorization on GitHub, so you were not signed in.",
};

/** The plain message for an `error` code on the sign-in page (a generic one for unknown codes). */
export function signInErrorMessage(code: string): string {
  const lower = code.toLowerCase();
  if (lower in DENIAL_MESSAGES) return DENIAL_MESSAGES[lower as DenialReason];
  return OTHER_MESSAGES[lower] ?? "Sign-in failed. Please try again.";
}
