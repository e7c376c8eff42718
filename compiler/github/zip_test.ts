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

/** Builds a deflated single-entry archive in memory (a test fixture writer, independent of the reader). */
async function deflatedZip(name: string, content: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([content as Uint8Array<ArrayBuffer>]).stream()
    .pipeThrough(new CompressionStream("deflate-raw"));
  const data = new Uint8Array(await new Response(stream).arrayBuffer());
  const nameBytes = new TextEncoder().encode(name);
  const local = new Uint8Array(30 + nameBytes.length);
  const lv = new DataView(local.buffer);
  lv.setUint32(0, 0x04034b50, true);
  lv.setUint16(8, 8, true);
  lv.setUint32(18, data.length, true);
  lv.setUint32(22, content.length, true);
  lv.setUint16(26, nameBytes.length, true);
  local.set(nameBytes, 30);
  const central = new Uint8Array(46 + nameBytes.length);
  const cv = new DataView(central.buffer);
  cv.setUint32(0, 0x02014b50, true);
  cv.setUint16(10, 8, true);
  cv.setUint32(20, data.length, true);
  cv.setUint32(24, content.length, true);
  cv.setUint16(28, nameBytes.length, true);
  cv.setUint32(42, 0, true);
  central.set(nameBytes, 46);
  const eocd = new Uint8Array(22);
  const ev = new DataView(eocd.buffer);
  ev.setUint32(0, 0x06054b50, true);
  ev.setUint16(8, 1, true);
  ev.setUint16(10, 1, true);
  ev.setUint32(12, central.length, true);
  ev.setUint32(16, local.length + data.length, true);
  const out = new Uint8Array(local.length + data.length + central.length + eocd.length);
  out.set(local, 0);
  out.set(data, local.length);
  out.set(central, local.length + data.length);
  out.set(eocd, local.length + data.length + central.length);
  return out;
}

Deno.test("readZip inflates within the size limit and refuses an archive that inflates past it", async () => {
  const zeros = new Uint8Array(4 * 1024 * 1024);
  const archive = await deflatedZip("big.log", zeros);
  assert.ok(archive.length < 64 * 1024, "the fixture is a small download that inflates a lot");
  const [entry] = await readZip(archive);
  assert.equal(entry.data.length, zeros.length);
  await assert.rejects(readZip(archive, 1024 * 1024), /big\.log inflates past the archive size limit/);
});
