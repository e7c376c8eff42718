import { compile } from "./compiler/mod.ts";
const r = await compile({ repoRoot: "/work/shared/ghaw-corpus", actionMode: "dev" });
for (const name of Deno.args) {
  const w = r.workflows.find((w) => w.source.endsWith(`/${name}.md`))!;
  await Deno.writeTextFile(`/tmp/me/${name}.ours.yml`, w.lockContent!);
  await Deno.writeTextFile(
    `/tmp/me/${name}.theirs.yml`,
    await Deno.readTextFile(`/work/shared/ghaw-corpus/${w.lockPath}`),
  );
}
