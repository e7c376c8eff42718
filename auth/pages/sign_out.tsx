/** The RP-initiated logout pages: the sign-out confirmation and the result (signed out / still signed in). */
import { Layout } from "./layout.tsx";

/** Path the confirmation form posts to. */
export const END_SESSION_CONFIRM_PATH = "/end-session";

/** What the confirmation page shows. */
export interface SignOutProps {
  /** The signed-in user's name. */
  userName: string;
  /** The client that asked for the logout, if known. */
  clientName?: string;
  /** The signed, session-bound logout request the form carries back. */
  logoutRequest: string;
}

/** The confirmation page: `Sign out` and `Cancel`. */
export function SignOutPage(props: SignOutProps) {
  return (
    <Layout title="Sign out?">
      <h1>Sign out?</h1>
      <p>
        You are signed in as {props.userName}.
        {props.clientName ? ` ${props.clientName} asked to sign you out.` : ""}
      </p>
      <div class="row">
        <form method="post" action={END_SESSION_CONFIRM_PATH}>
          <input type="hidden" name="logout_request" value={props.logoutRequest} />
          <input type="hidden" name="decision" value="sign_out" />
          <button type="submit">Sign out</button>
        </form>
        <form method="post" action={END_SESSION_CONFIRM_PATH}>
          <input type="hidden" name="logout_request" value={props.logoutRequest} />
          <input type="hidden" name="decision" value="cancel" />
          <button type="submit" class="secondary">Cancel</button>
        </form>
      </div>
    </Layout>
  );
}

/** What the result page shows. */
export interface SignOutResultProps {
  /** True when the session ended. */
  signedOut: boolean;
  /** Where the user may go back to (the validated post-logout URI with `state`), if any. */
  returnTo?: string;
  /** The client's name, for the link. */
  clientName?: string;
}

/** The page after a logout without a post-logout redirect, or after Cancel. */
export function SignOutResultPage(props: SignOutResultProps) {
  const title = props.signedOut ? "You are signed out" : "You are still signed in";
  return (
    <Layout title={title}>
      <h1>{title}</h1>
      <p role="status">
        {props.signedOut ? "Your session has ended." : "Your session was kept; nothing changed."}
      </p>
      {props.returnTo
        ? (
          <p>
            <a href={props.returnTo}>Back to {props.clientName ?? "the application"}</a>
          </p>
        )
        : null}
    </Layout>
  );
}
