import assert from "node:assert/strict";
import { extractZip, readZip } from "./zip.ts";

const hasZip = await new Deno.Command("zip", { args: ["-v"], stdout: "null", stderr: "null" }).output()
  .then((r) => r.success).catch(() => false);

Deno.test({
  name: "readZip reads stored and deflated entries written by the zip tool",
  ignore: !hasZip,
  fn: async () => {
    const dir = await Deno.makeTempDir();
    try {
      await Deno.mkdir(`${dir}/in/sub`, { recursive: true });
      const big = "agent log line\n".repeat(2000);
      await Deno.writeTextFile(`${dir}/in/sub/log.txt`, big);
      await Deno.writeTextFile(`${dir}/in/tiny.json`, "{}");
      const zip = await new Deno.Command("zip", { args: ["-qr", "../a.zip", "."], cwd: `${dir}/in` })
        .output();
      assert.ok(zip.success);
      const entries = await readZip(await Deno.readFile(`${dir}/a.zip`));
      const byName = Object.fromEntries(entries.map((e) => [e.name, new TextDecoder().decode(e.data)]));
      assert.equal(byName["sub/log.txt"], big);
      assert.equal(byName["tiny.json"], "{}");
      assert.deepEqual((await extractZip(await Deno.readFile(`${dir}/a.zip`), `${dir}/out`)).sort(), [
        "sub/log.txt",
        "tiny.json",
      ]);
      assert.equal(await Deno.readTextFile(`${dir}/out/sub/log.txt`), big);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("readZip refuses data that is not an archive", async () => {
  await assert.rejects(readZip(new TextEncoder().encode("<html>not a zip</html>")), /not a zip archive/);
});

Deno.test("readZip reports a truncated archive as a corrupt zip, not a bare RangeError", async () => {
  // An end-of-central-directory record announcing one entry at an offset past the end of the data.
  const eocd = new Uint8Array(22);
  const view = new DataView(eocd.buffer);
  view.setUint32(0, 0x06054b50, true);
  view.setUint16(10, 1, true);
  view.setUint32(16, 1000, true);
  await assert.rejects(readZip(eocd), (error: Error) => /^corrupt zip archive: /.test(error.message));
});
