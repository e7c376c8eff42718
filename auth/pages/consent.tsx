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

/** "<client> is asking to:" and each requested scope in plain words (consent and device pages). */
export function ScopeList(props: { clientName: string; scopes: string[] }) {
  return (
    <>
      <p id="scopes-label">{props.clientName} is asking to:</p>
      <ul aria-labelledby="scopes-label">
        {props.scopes.map((scope) => (
          <li>
            {SCOPE_DESCRIPTIONS[scope] ?? scope} (<code>{scope}</code>)
          </li>
        ))}
      </ul>
    </>
  );
}

/** The Allow and Deny forms, each posting `decision` with the hidden field that names the request. */
export function DecisionForms(props: { action: string; field: string; value: string }) {
  return (
    <div class="row">
      {(["allow", "deny"] as const).map((decision) => (
        <form method="post" action={props.action}>
          <input type="hidden" name={props.field} value={props.value} />
          <input type="hidden" name="decision" value={decision} />
          {decision === "allow"
            ? <button type="submit">Allow</button>
            : <button type="submit" class="secondary">Deny</button>}
        </form>
      ))}
    </div>
  );
}

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
      <ScopeList clientName={props.clientName} scopes={props.scopes} />
      <DecisionForms action="/consent" field="oauth_query" value={props.oauthQuery} />
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
