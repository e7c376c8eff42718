/** The sign-in page: GitHub outside local mode, the one-click developer account in local mode. */
import { Layout } from "./layout.tsx";

/** What the sign-in page shows. */
export interface SignInProps {
  /** True in local mode: offer the developer account instead of GitHub. */
  localMode: boolean;
  /** The signed authorization query to resume, verbatim (without `?`), or empty. */
  oauthQuery: string;
  /** A message to show, for example after a failed attempt. */
  error?: string;
  /** The signed-in user's name, when already signed in and nothing is pending. */
  signedInAs?: string;
}

/** Label of the local developer button. */
const LOCAL_DEVELOPER_BUTTON = "Continue as local developer";

/** The sign-in page. */
export function SignInPage(props: SignInProps) {
  return (
    <Layout title="Sign in">
      <h1>Sign in</h1>
      {props.signedInAs && !props.oauthQuery
        ? <p role="status">You are signed in as {props.signedInAs}.</p>
        : null}
      {props.error ? <p class="error" role="alert">{props.error}</p> : null}
      {props.localMode
        ? (
          <form method="post" action="/sign-in/local-developer">
            <p>Local development mode: sign in with the local developer account.</p>
            <input type="hidden" name="oauth_query" value={props.oauthQuery} />
            <button type="submit">{LOCAL_DEVELOPER_BUTTON}</button>
          </form>
        )
        : (
          <form method="post" action="/sign-in/github">
            <input type="hidden" name="oauth_query" value={props.oauthQuery} />
            <button type="submit">Continue with GitHub</button>
          </form>
        )}
    </Layout>
  );
}
