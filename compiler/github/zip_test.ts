import assert from "node:assert/strict";
import { zipSync } from "fflate";
import { extractZip, MAX_EXPANSION_RATIO, readZip } from "./zip.ts";

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
      const entries = readZip(await Deno.readFile(`${dir}/a.zip`));
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

Deno.test("readZip refuses data that is not an archive", () => {
  assert.throws(() => readZip(new TextEncoder().encode("<html>not a zip</html>")), /not a zip archive/);
  assert.throws(() => readZip(new Uint8Array(0)), /not a zip archive/);
});

Deno.test("readZip reports a truncated archive as a corrupt zip, not a bare RangeError", () => {
  // An end-of-central-directory record announcing one entry at an offset past the end of the data.
  const eocd = new Uint8Array(22);
  const view = new DataView(eocd.buffer);
  view.setUint32(0, 0x06054b50, true);
  view.setUint16(8, 1, true);
  view.setUint16(10, 1, true);
  view.setUint32(16, 1000, true);
  assert.throws(() => readZip(eocd), (error: Error) => /^corrupt zip /.test(error.message));
  // A stored entry whose declared data runs past the end of the archive.
  const whole = archive([{ name: "a.txt", data: new TextEncoder().encode("hello world") }]);
  const cut = archive([{
    name: "a.txt",
    data: new TextEncoder().encode("hello"),
    declared: 9000,
    stored: 9000,
  }]);
  assert.equal(new TextDecoder().decode(readZip(whole)[0].data), "hello world");
  assert.throws(() => readZip(cut), /corrupt zip archive: a\.txt holds fewer bytes than it declares/);
});

interface FixtureEntry {
  name: string;
  /** Bytes as stored in the archive (already deflated when `method` is 8). */
  data: Uint8Array;
  /** 0 stored (default), 8 deflated. */
  method?: number;
  /** Declared uncompressed size (default the length of `data`). */
  declared?: number;
  /** Declared compressed size (default the length of `data`). */
  stored?: number;
}

/**
 * Writes an archive byte by byte (a test fixture writer, independent of the reader), so tests can declare
 * sizes that lie; `repeat` lists each central directory record that many times, all pointing at one local
 * entry (the overlapping-entry bomb).
 */
function archive(entries: FixtureEntry[], repeat = 1): Uint8Array {
  const locals: Uint8Array[] = [];
  const centrals: Uint8Array[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = new TextEncoder().encode(entry.name);
    const method = entry.method ?? 0;
    const stored = entry.stored ?? entry.data.length;
    const declared = entry.declared ?? entry.data.length;
    const local = new Uint8Array(30 + name.length + entry.data.length);
    const lv = new DataView(local.buffer);
    lv.setUint32(0, 0x04034b50, true);
    lv.setUint16(8, method, true);
    lv.setUint32(18, stored, true);
    lv.setUint32(22, declared, true);
    lv.setUint16(26, name.length, true);
    local.set(name, 30);
    local.set(entry.data, 30 + name.length);
    for (let n = 0; n < repeat; n++) {
      const central = new Uint8Array(46 + name.length);
      const cv = new DataView(central.buffer);
      cv.setUint32(0, 0x02014b50, true);
      cv.setUint16(10, method, true);
      cv.setUint32(20, stored, true);
      cv.setUint32(24, declared, true);
      cv.setUint16(28, name.length, true);
      cv.setUint32(42, offset, true);
      central.set(name, 46);
      centrals.push(central);
    }
    locals.push(local);
    offset += local.length;
  }
  const centralSize = centrals.reduce((sum, c) => sum + c.length, 0);
  const eocd = new Uint8Array(22);
  const ev = new DataView(eocd.buffer);
  ev.setUint32(0, 0x06054b50, true);
  ev.setUint16(8, centrals.length, true);
  ev.setUint16(10, centrals.length, true);
  ev.setUint32(12, centralSize, true);
  ev.setUint32(16, offset, true);
  const parts = [...locals, ...centrals, eocd];
  const out = new Uint8Array(parts.reduce((sum, p) => sum + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

async function deflateRaw(content: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([content as Uint8Array<ArrayBuffer>]).stream()
    .pipeThrough(new CompressionStream("deflate-raw"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

async function deflatedZip(name: string, content: Uint8Array, repeat = 1): Promise<Uint8Array> {
  return archive([{ name, data: await deflateRaw(content), method: 8, declared: content.length }], repeat);
}

Deno.test("readZip inflates within the size limit and refuses an archive that inflates past it", async () => {
  const zeros = new Uint8Array(4 * 1024 * 1024);
  const zip = await deflatedZip("big.log", zeros);
  assert.ok(zip.length < 64 * 1024, "the fixture is a small download that inflates a lot");
  const [entry] = readZip(zip);
  assert.equal(entry.data.length, zeros.length);
  assert.ok(entry.data.every((b) => b === 0));
  assert.throws(() => readZip(zip, 1024 * 1024), /zip archive inflates to more than 1048576 bytes/);
  assert.throws(() => readZip(zip, zeros.length - 1), /inflates to more than/);
  assert.equal(readZip(zip, zeros.length)[0].data.length, zeros.length);
});

Deno.test("readZip refuses an overlapping-entry bomb: many records, one compressed stream", async () => {
  const content = new Uint8Array(256 * 1024);
  const once = await deflatedZip("part.log", content);
  assert.equal(readZip(once).length, 1);
  const ratio = content.length / once.length;
  const repeat = Math.ceil(MAX_EXPANSION_RATIO / ratio) + 1;
  const bomb = await deflatedZip("part.log", content, repeat);
  assert.ok(repeat * content.length < 64 * 1024 * 1024, "the bomb stays under the size cap");
  assert.throws(() => readZip(bomb), /declares \d+ bytes from \d+, more than deflate can expand/);
});

Deno.test("readZip refuses an entry declaring more than deflate can produce, before inflating it", async () => {
  const data = await deflateRaw(new TextEncoder().encode("small"));
  const zip = archive([{ name: "liar.txt", data, method: 8, declared: 500 * 1024 * 1024 }]);
  assert.throws(() => readZip(zip), /more than deflate can expand/);
});

Deno.test("readZip refuses, or cuts at its declared size, an entry that inflates to more", async () => {
  for (
    const content of [new Uint8Array(1024 * 1024).fill(7), crypto.getRandomValues(new Uint8Array(60_000))]
  ) {
    const zip = archive([{ name: "under.bin", data: await deflateRaw(content), method: 8, declared: 1000 }]);
    let entries;
    try {
      entries = readZip(zip);
    } catch (error) {
      assert.match((error as Error).message, /^corrupt zip archive: /);
      continue;
    }
    assert.equal(entries[0].data.length, 1000);
    assert.equal(entries[0].data.buffer.byteLength, 1000, "no buffer beyond the declared size was kept");
  }
});

Deno.test("readZip refuses zip-slip paths: parent segments, absolute, drive letters, backslashes", () => {
  for (const name of ["../evil.sh", "a/../../evil.sh", "/etc/passwd", "C:/x.txt", "c:evil", "a\\..\\..\\b"]) {
    const zip = archive([{ name, data: new TextEncoder().encode("x") }]);
    assert.throws(() => readZip(zip), /unsafe path in zip archive/, name);
  }
  const safe = archive([{ name: "dir\\file..txt", data: new TextEncoder().encode("x") }]);
  assert.deepEqual(readZip(safe).map((e) => e.name), ["dir/file..txt"]);
});

Deno.test("readZip refuses compression methods other than stored and deflate", () => {
  const zip = archive([{ name: "a.bz2", data: new Uint8Array(4), method: 12 }]);
  assert.throws(() => readZip(zip), /unsupported zip compression method 12 for a\.bz2/);
});

Deno.test("extractZip writes every file of an fflate-written archive, skipping directories", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const zip = zipSync({
      "logs/": new Uint8Array(0),
      "logs/1_build.txt": new TextEncoder().encode("step 1\n".repeat(500)),
      "summary.json": [new TextEncoder().encode("{}"), { level: 0 }],
    });
    assert.deepEqual((await extractZip(zip, dir)).sort(), ["logs/1_build.txt", "summary.json"]);
    assert.equal(await Deno.readTextFile(`${dir}/logs/1_build.txt`), "step 1\n".repeat(500));
    assert.equal(await Deno.readTextFile(`${dir}/summary.json`), "{}");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
