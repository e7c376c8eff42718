/**
 * A throwaway test CA and one leaf certificate for the deployed end-to-end run, made by Debian's openssl at
 * test time (nothing secret is committed): SANs for the suite's hosts under example.test, GitHub's two hosts
 * (the stand-in) and 127.0.0.1. Chromium trusts the leaf by its SPKI hash; Deno clients trust the CA.
 */

/** The files and facts of a generated certificate. */
export interface TestCertificate {
  /** PEM of the CA certificate (for Deno.createHttpClient caCerts). */
  caPem: string;
  /** PEM of the leaf certificate chain (leaf + CA). */
  certPem: string;
  /** PEM of the leaf's private key. */
  keyPem: string;
  /** base64 SHA-256 of the leaf's SubjectPublicKeyInfo (Chromium's --ignore-certificate-errors-spki-list). */
  spkiSha256: string;
}

const HOSTS = [
  "auth.example.test",
  "app.example.test",
  "app2.example.test",
  "blog.example.test",
  "github.com",
  "api.github.com",
];

async function openssl(args: string[], cwd: string, stdin?: Uint8Array): Promise<Uint8Array> {
  const child = new Deno.Command("openssl", {
    args,
    cwd,
    stdin: stdin ? "piped" : "null",
    stdout: "piped",
    stderr: "piped",
  })
    .spawn();
  if (stdin) {
    const writer = child.stdin.getWriter();
    await writer.write(stdin);
    await writer.close();
  }
  const output = await child.output();
  if (output.code !== 0) {
    throw new Error(`openssl ${args[0]} failed: ${new TextDecoder().decode(output.stderr)}`);
  }
  return output.stdout;
}

/** Generates the CA and leaf in a temp dir; fails with a clear message when openssl is missing. */
export async function makeTestCertificate(): Promise<TestCertificate> {
  try {
    await new Deno.Command("openssl", { args: ["version"], stdout: "null", stderr: "null" }).output();
  } catch {
    throw new Error("openssl is missing: install Debian's openssl (apt-get install -y openssl)");
  }
  const dir = await Deno.makeTempDir({ prefix: "switchyard-tls-" });
  try {
    await openssl(
      [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-days",
        "2",
        "-subj",
        "/CN=Switchyard test CA",
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign,cRLSign",
      ],
      dir,
    );
    await openssl([
      "req",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      "leaf.key",
      "-out",
      "leaf.csr",
      "-subj",
      "/CN=auth.example.test",
    ], dir);
    const san = [...HOSTS.map((h) => `DNS:${h}`), "IP:127.0.0.1"].join(",");
    await Deno.writeTextFile(
      `${dir}/leaf.ext`,
      `subjectAltName=${san}\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n`,
    );
    await openssl(
      [
        "x509",
        "-req",
        "-in",
        "leaf.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "leaf.pem",
        "-days",
        "2",
        "-extfile",
        "leaf.ext",
      ],
      dir,
    );
    const publicKey = await openssl(["x509", "-in", "leaf.pem", "-pubkey", "-noout"], dir);
    const der = await openssl(["pkey", "-pubin", "-outform", "der"], dir, publicKey);
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new Uint8Array(der)));
    const caPem = await Deno.readTextFile(`${dir}/ca.pem`);
    return {
      caPem,
      certPem: (await Deno.readTextFile(`${dir}/leaf.pem`)) + caPem,
      keyPem: await Deno.readTextFile(`${dir}/leaf.key`),
      spkiSha256: btoa(String.fromCharCode(...digest)),
    };
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}
