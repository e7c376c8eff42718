/**
 * The OP's own error page (`/api/auth/error`), where Better Auth sends authorization errors it cannot
 * redirect to the client (unknown client, unregistered redirect URI). Replaces 1.6.23's page, which lacks the
 * pages' security headers; the error code and description are shown as escaped text, shortened.
 */
import { renderPage } from "./layout.tsx";
import { ErrorPage } from "./consent.tsx";

/** Path of Better Auth's error page under the service. */
export const AUTH_ERROR_PATH = "/api/auth/error";

const MAX_SHOWN = 200;

/** Renders the error page for `url` (`?error=…&error_description=…`), status 400. */
export function renderAuthError(url: URL): Response {
  const clip = (value: string | null) => (value ?? "").slice(0, MAX_SHOWN);
  const code = clip(url.searchParams.get("error")) || "invalid_request";
  const description = clip(url.searchParams.get("error_description")) ||
    "The request could not be processed.";
  return renderPage(
    <ErrorPage title="Authorization failed" message={`${description} (error: ${code})`} />,
    400,
  );
}
