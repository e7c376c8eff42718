/** The `/device` pages: sign in, enter the user code, allow or deny the device, and the outcome. */
import { Layout } from "../pages/layout.tsx";

/** Plain-language meaning of the scopes a device may ask for. */
const SCOPE_DESCRIPTIONS: Readonly<Record<string, string>> = {
  openid: "Know who you are (your account identifier)",
  profile: "See your name and profile picture",
  email: "See your email address",
  groups: "See the organisations and teams you belong to",
  offline_access: "Stay connected when you are not using it (refresh tokens)",
};

/** Sign in first; the typed or linked user code travels on. */
export function DeviceSignInPage(props: { localMode: boolean; userCode: string }) {
  return (
    <Layout title="Sign in to connect a device">
      <h1>Sign in to connect a device</h1>
      <form method="post" action="/device/sign-in">
        <input type="hidden" name="user_code" value={props.userCode} />
        <button type="submit">
          {props.localMode ? "Continue as local developer" : "Continue with GitHub"}
        </button>
      </form>
    </Layout>
  );
}

/** The user code form. */
export function DeviceCodePage(props: { error?: string; userCode?: string }) {
  return (
    <Layout title="Connect a device">
      <h1>Connect a device</h1>
      {props.error ? <p class="error" role="alert">{props.error}</p> : null}
      <form method="get" action="/device">
        <p>
          <label for="user_code">Enter the code your device shows</label>
        </p>
        <p>
          <input
            id="user_code"
            name="user_code"
            value={props.userCode ?? ""}
            autocomplete="off"
            autocapitalize="characters"
            spellcheck={false}
            placeholder="XXXX-XXXX"
            style="font:inherit;font-size:1.4rem;letter-spacing:.1em;width:100%;padding:.5rem"
          />
        </p>
        <button type="submit">Continue</button>
      </form>
    </Layout>
  );
}

/** The consent page of a device: client, scopes and the code, to compare with the device's screen. */
export function DeviceConsentPage(props: { clientName: string; scopes: string[]; userCode: string }) {
  return (
    <Layout title={`Allow ${props.clientName}?`}>
      <h1>Allow {props.clientName} on your device?</h1>
      <p>
        Check that your device shows the code <strong>{props.userCode}</strong>.
      </p>
      <p id="scopes-label">{props.clientName} is asking to:</p>
      <ul aria-labelledby="scopes-label">
        {props.scopes.map((scope) => (
          <li>
            {SCOPE_DESCRIPTIONS[scope] ?? scope} (<code>{scope}</code>)
          </li>
        ))}
      </ul>
      <div class="row">
        <form method="post" action="/device/decision">
          <input type="hidden" name="user_code" value={props.userCode} />
          <input type="hidden" name="decision" value="allow" />
          <button type="submit">Allow</button>
        </form>
        <form method="post" action="/device/decision">
          <input type="hidden" name="user_code" value={props.userCode} />
          <input type="hidden" name="decision" value="deny" />
          <button type="submit" class="secondary">Deny</button>
        </form>
      </div>
    </Layout>
  );
}

/** The outcome. */
export function DeviceDonePage(props: { allowed: boolean }) {
  return (
    <Layout title={props.allowed ? "Device connected" : "Device refused"}>
      <h1>{props.allowed ? "Device connected" : "Device refused"}</h1>
      <p role="status">
        {props.allowed
          ? "You can close this page and return to your device."
          : "The device was not given access. You can close this page."}
      </p>
    </Layout>
  );
}
