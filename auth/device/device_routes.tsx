/**
 * `/device` (RFC 8628 §3.3): a signed-in person enters (or follows a link with) the user code, sees which
 * client asks for what, and allows or denies it. Not signed in: the sign-in form of the service, returning
 * here with the code. Decisions are state changes: POST from the service's own origin only.
 */
import type { Client } from "@libsql/client";
import type { Env, Hono } from "hono";
import { renderPage } from "../pages/layout.tsx";
import { ErrorPage } from "../pages/consent.tsx";
import { LOCAL_DEVELOPER_SIGN_IN_PATH } from "../local/developer.ts";
import type { AuditEvent } from "../audit/mod.ts";
import { decideUserCode, DEVICE_PAGE_PATH, normalizeUserCode, pendingByUserCode } from "./device_flow.ts";
import { DeviceCodePage, DeviceConsentPage, DeviceDonePage, DeviceSignInPage } from "./device_pages.tsx";

/** What the device pages need from the auth app. */
export interface DeviceRouteDeps {
  local: boolean;
  client: Client;
  /** The service origin (deployed POSTs must come from it). */
  origin: string;
  sessionOf(
    request: Request,
  ): Promise<{ user: { id: string }; session: { createdAt: Date | string } } | null>;
  callAuth(request: Request, path: string, body: unknown): Promise<Response>;
  /** Records a device decision in the audit log (as a consent). */
  audit?(event: AuditEvent): Promise<void>;
}

function returnPath(userCode: string | undefined): string {
  return userCode ? `${DEVICE_PAGE_PATH}?user_code=${encodeURIComponent(userCode)}` : DEVICE_PAGE_PATH;
}

function redirect(location: string, cookies: string[] = []): Response {
  const headers = new Headers({ location, "cache-control": "no-store" });
  for (const cookie of cookies) headers.append("set-cookie", cookie);
  return new Response(null, { status: 303, headers });
}

const badOrigin = () =>
  renderPage(<ErrorPage title="Request refused" message="This form must be sent from this site." />, 403);

/** Adds `GET /device`, `POST /device/sign-in` and `POST /device/decision`. */
export function registerDeviceRoutes<E extends Env>(app: Hono<E>, deps: DeviceRouteDeps): void {
  const sameOrigin = (request: Request) => deps.local || request.headers.get("origin") === deps.origin;

  app.get(DEVICE_PAGE_PATH, async (c) => {
    const typed = c.req.query("user_code");
    const session = await deps.sessionOf(c.req.raw);
    if (!session) return renderPage(<DeviceSignInPage localMode={deps.local} userCode={typed ?? ""} />);
    if (typed === undefined || typed === "") return renderPage(<DeviceCodePage />);
    const userCode = normalizeUserCode(typed);
    const pending = userCode && await pendingByUserCode(deps.client, userCode);
    if (!pending) {
      return renderPage(
        <DeviceCodePage error="That code is not valid, has expired or was already used. Check your device." />,
        400,
      );
    }
    return renderPage(
      <DeviceConsentPage
        clientName={pending.clientName}
        scopes={pending.request.scopes}
        userCode={pending.request.userCode}
      />,
    );
  });

  app.post(`${DEVICE_PAGE_PATH}/sign-in`, async (c) => {
    if (!sameOrigin(c.req.raw)) return badOrigin();
    const form = await c.req.parseBody();
    const typed = typeof form.user_code === "string" ? form.user_code : "";
    const back = returnPath(normalizeUserCode(typed) ?? undefined);
    const response = deps.local
      ? await deps.callAuth(c.req.raw, LOCAL_DEVELOPER_SIGN_IN_PATH, {})
      : await deps.callAuth(c.req.raw, "/sign-in/social", { provider: "github", callbackURL: back });
    const body = await response.json().catch(() => ({})) as { url?: unknown };
    if (!response.ok) {
      return renderPage(<ErrorPage title="Sign-in failed" message="Sign-in failed; try again." />, 400);
    }
    const next = !deps.local && typeof body.url === "string" ? body.url : back;
    return redirect(next, response.headers.getSetCookie());
  });

  app.post(`${DEVICE_PAGE_PATH}/decision`, async (c) => {
    if (!sameOrigin(c.req.raw)) return badOrigin();
    const session = await deps.sessionOf(c.req.raw);
    if (!session) return redirect(DEVICE_PAGE_PATH);
    const form = await c.req.parseBody();
    const userCode = typeof form.user_code === "string" ? normalizeUserCode(form.user_code) : undefined;
    const allow = form.decision === "allow";
    const decided = userCode === undefined ? undefined : await decideUserCode(deps.client, userCode, {
      allow,
      userId: session.user.id,
      authTime: new Date(session.session.createdAt).getTime(),
    });
    if (decided) {
      await deps.audit?.({
        action: "consent",
        outcome: "success",
        userId: session.user.id,
        clientId: decided.clientId,
        actor: "user",
        reason: allow ? `device allow ${decided.scopes.join(" ")}` : "device deny",
      });
    }
    if (!decided) {
      return renderPage(
        <DeviceCodePage error="That code is not valid, has expired or was already used. Check your device." />,
        400,
      );
    }
    return renderPage(<DeviceDonePage allowed={allow} />);
  });
}
