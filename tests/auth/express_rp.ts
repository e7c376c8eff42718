/**
 * A third-party relying party for the back-channel logout test: Express with `express-openid-connect` 3.4.0
 * (`backchannelLogout` on), run as its own process. Usage: `deno run -A tests/auth/express_rp.ts <issuer>
 * <client_id> <client_secret>`. Prints `{"url": …}` once listening, then one JSON line per entry its logout
 * store records (`{"stored": "<iss>|<sid or sub>"}`), which is how the library marks a session logged out.
 */
import express from "express";
import { auth } from "express-openid-connect";

const [issuer, clientID, clientSecret] = Deno.args;
const entries = new Map<string, unknown>();
/** An express-session-shaped store: the library writes `<iss>|<sid>` and `<iss>|<sub>` keys on logout. */
const store = {
  get(key: string, callback: (error: unknown, value?: unknown) => void) {
    callback(null, entries.get(key));
  },
  set(key: string, value: unknown, callback: (error?: unknown) => void) {
    entries.set(key, value);
    console.log(JSON.stringify({ stored: key }));
    callback();
  },
  destroy(key: string, callback: (error?: unknown) => void) {
    entries.delete(key);
    callback();
  },
};

const app = express();
const server = app.listen(0, "127.0.0.1", () => {
  const { port } = server.address() as { port: number };
  const baseURL = `http://127.0.0.1:${port}`;
  app.use(auth({
    issuerBaseURL: issuer,
    baseURL,
    clientID,
    clientSecret,
    secret: "express-rp-cookie-secret-express-rp-cookie-secret",
    authRequired: false,
    authorizationParams: { response_type: "code", scope: "openid" },
    idpLogout: false,
    // The library types its store as express-session's; this one keeps only what the test reads.
    backchannelLogout: { store: store as never },
  }));
  console.log(JSON.stringify({ url: baseURL }));
});
