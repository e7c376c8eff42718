import assert from "node:assert/strict";

const COMPILER = new URL("../../compiler/", import.meta.url);

async function sources(dir: URL): Promise<URL[]> {
  const files: URL[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
    if (entry.isDirectory && entry.name !== "testdata") files.push(...await sources(url));
    else if (entry.isFile && entry.name.endsWith(".ts") && !entry.name.endsWith("_test.ts")) files.push(url);
  }
  return files;
}

Deno.test("compiler modules read no data files beside themselves, so the standalone binary needs none", async () => {
  const offenders: string[] = [];
  for (const file of await sources(COMPILER)) {
    const text = await Deno.readTextFile(file);
    // Reading a file located relative to the module breaks `deno compile`; import JSON instead.
    if (/Deno\.read(Text)?File(Sync)?\(\s*new URL\([^)]*import\.meta\.url/.test(text)) {
      offenders.push(file.pathname);
    }
    if (/fromFileUrl\(\s*new URL\([^)]*import\.meta\.url/.test(text)) offenders.push(file.pathname);
  }
  assert.deepEqual(offenders, [], 'use `import data from "./x.json" with { type: "json" }`');
});
