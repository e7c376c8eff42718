/** The consent page: names the client, lists the requested scopes, and offers Allow and Deny. */
import { Layout } from "./layout.tsx";

/** Plain-language meaning of each scope. */
const SCOPE_DESCRIPTIONS: Readonly<Record<string, string>> = {
  openid: "Know who you are (your account identifier)",
  profile: "See your name and profile picture",
  email: "See your email address",
  offline_access: "Stay connected when you are not using it (refresh tokens)",
  groups: "See which of the allowed organisations and teams you belong to",
};

/** What the consent page shows. */
export interface ConsentProps {
  /** The client's display name. */
  clientName: string;
  /** Requested scopes. */
  scopes: string[];
  /** The signed authorization query, verbatim. */
  oauthQuery: string;
}

/** The consent page. */
export function ConsentPage(props: ConsentProps) {
  return (
    <Layout title={`Allow ${props.clientName}?`}>
      <h1>Allow {props.clientName} to access your account?</h1>
      <p id="scopes-label">{props.clientName} is asking to:</p>
      <ul aria-labelledby="scopes-label">
        {props.scopes.map((scope) => (
          <li>
            {SCOPE_DESCRIPTIONS[scope] ?? scope} (<code>{scope}</code>)
          </li>
        ))}
      </ul>
      <div class="row">
        <form method="post" action="/consent">
          <input type="hidden" name="oauth_query" value={props.oauthQuery} />
          <input type="hidden" name="decision" value="allow" />
          <button type="submit">Allow</button>
        </form>
        <form method="post" action="/consent">
          <input type="hidden" name="oauth_query" value={props.oauthQuery} />
          <input type="hidden" name="decision" value="deny" />
          <button type="submit" class="secondary">Deny</button>
        </form>
      </div>
    </Layout>
  );
}

/** A simple error page. */
export function ErrorPage(props: { title: string; message: string }) {
  return (
    <Layout title={props.title}>
      <h1>{props.title}</h1>
      <p class="error" role="alert">{props.message}</p>
    </Layout>
  );
}
