import assert from "node:assert/strict";
import { explainRuntimeDownloadFailure, TARGETS } from "./build_binary.ts";

Deno.test("the build explains a failed runtime download instead of dumping deno's error", () => {
  const stderr = "error: Writing deno compile executable\nCaused by:\n 1: error sending request for url " +
    "(https://dl.deno.land/release/v2.9.6/denort-x86_64-unknown-linux-gnu.zip): client error (Connect): dns error";
  const message = explainRuntimeDownloadFailure(stderr, "x86_64-unknown-linux-gnu");
  assert.match(message ?? "", /could not download the Deno runtime \(denort\) for x86_64-unknown-linux-gnu/);
  assert.match(message ?? "", /DENORT_BIN/);
  assert.equal(explainRuntimeDownloadFailure("error: Module not found", "x"), undefined);
});

Deno.test("the release targets cover linux x64/arm64, macOS x64/arm64 and Windows x64", () => {
  assert.deepEqual(Object.keys(TARGETS), [
    "linux-amd64",
    "linux-arm64",
    "darwin-amd64",
    "darwin-arm64",
    "windows-amd64",
  ]);
});
