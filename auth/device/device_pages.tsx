/** The `/device` pages: sign in, enter the user code, allow or deny the device, and the outcome. */
import { Layout } from "../pages/layout.tsx";
import { DecisionForms, ScopeList } from "../pages/consent.tsx";

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
      <ScopeList clientName={props.clientName} scopes={props.scopes} />
      <DecisionForms action="/device/decision" field="user_code" value={props.userCode} />
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
