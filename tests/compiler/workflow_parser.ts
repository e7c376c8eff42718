/**
 * Loads GitHub's own workflow parser (`npm:@actions/workflow-parser`) in Deno. Its package imports a JSON
 * file without an import attribute, so it is bundled once with esbuild (JSON inlined) and imported from
 * a data URL. Used by tests to check every emitted lock file.
 */
import * as esbuild from "esbuild";
import { Buffer } from "node:buffer";

type Parser = {
  parseWorkflow: (
    file: { name: string; content: string },
    trace: unknown,
  ) => { context: { errors: { getErrors(): { message: string }[] } }; value: unknown };
  convertWorkflowTemplate: (
    ctx: unknown,
    value: unknown,
    fetcher: unknown,
    opts: unknown,
  ) => Promise<unknown>;
};

let cached: Promise<Parser> | undefined;

async function load(): Promise<Parser> {
  const out = await esbuild.build({
    stdin: { contents: 'export * from "@actions/workflow-parser";', resolveDir: Deno.cwd(), loader: "js" },
    bundle: true,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    write: false,
    logLevel: "silent",
  });
  await esbuild.stop();
  const code = new TextDecoder().decode(out.outputFiles[0].contents);
  const url = "data:text/javascript;base64," + Buffer.from(code).toString("base64");
  return await import(url) as Parser;
}

/** Parses a workflow with GitHub's parser; returns the error messages (empty when valid). */
export async function workflowErrors(name: string, content: string): Promise<string[]> {
  cached ??= load();
  const p = await cached;
  const trace = { info: () => {}, verbose: () => {}, error: () => {} };
  const parsed = p.parseWorkflow({ name, content }, trace);
  await p.convertWorkflowTemplate(parsed.context, parsed.value, undefined, {
    errorPolicy: 1, /* ErrorPolicy.TryConversion (not re-exported) */
  });
  return parsed.context.errors.getErrors().map((e) => e.message);
}
