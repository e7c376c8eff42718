/** Helpers for tests: temporary directories and databases that clean themselves up. */

/** A temporary directory removed by `Symbol.asyncDispose`. */
export async function tempDir(prefix = "switchyard-"): Promise<{ path: string } & AsyncDisposable> {
  const path = await Deno.makeTempDir({ prefix });
  return {
    path,
    [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }).catch(() => {}),
  };
}
