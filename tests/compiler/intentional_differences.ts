/**
 * Intentional differences from gh-aw that change a lock's permissions (docs/compiler-differences.md, the
 * `permission-grants-withheld` block): the conformance measurements apply them to gh-aw's lock before
 * comparing, and only where awc's lock indeed withholds the grant, so nothing else is masked.
 */
const docs = await Deno.readTextFile(new URL("../../docs/compiler-differences.md", import.meta.url)).catch(
  () => "",
);

/** `job scope` pairs: gh-aw grants the scope `write` to the job where awc (by the spec) does not. */
export const WITHHELD_GRANTS: [string, string][] =
  (/```permission-grants-withheld\n([\s\S]*?)```/.exec(docs)?.[1] ?? "").split("\n").map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#")).map((l) => l.split(/\s+/) as [string, string]);

/** The text of one top-level job of a lock (from its `  name:` line to the next job), or undefined. */
function jobSection(text: string, job: string): [number, number] | undefined {
  const start = text.indexOf(`\n  ${job}:\n`);
  if (start < 0) return undefined;
  const next = /\n {2}[A-Za-z_][\w-]*:\n/.exec(text.slice(start + 1));
  return [start, next ? start + 1 + next.index : text.length];
}

/** gh-aw's lock text without the withheld grants that awc's lock (`ours`) withholds. */
export function withoutWithheldGrants(theirs: string, ours: string): string {
  let out = theirs;
  for (const [job, scope] of WITHHELD_GRANTS) {
    const line = `\n      ${scope}: write\n`;
    const mine = jobSection(ours, job);
    const at = jobSection(out, job);
    if (!mine || !at || ours.slice(...mine).includes(line)) continue;
    const section = out.slice(...at);
    const perms = section.indexOf("\n    permissions:\n");
    const grant = section.indexOf(line, perms);
    if (perms < 0 || grant < 0 || section.slice(perms + 1, grant).match(/\n {4}\S/)) continue;
    out = out.slice(0, at[0]) + section.slice(0, grant) + section.slice(grant + line.length - 1) +
      out.slice(at[1]);
  }
  return out;
}

/** `job key` pairs: job-level keys awc adds where gh-aw has none (the `job-keys-added` block). */
export const ADDED_JOB_KEYS: [string, string][] = (/```job-keys-added\n([\s\S]*?)```/.exec(docs)?.[1] ?? "")
  .split("\n").map((l) => l.trim())
  .filter((l) => l && !l.startsWith("#")).map((l) => l.split(/\s+/) as [string, string]);

/**
 * gh-aw's lock text with the job-level keys awc adds (`ours` has them, gh-aw's job lacks them) copied in at
 * the same place (before the key that follows it in awc's job), so nothing else of the job is masked.
 */
export function withAddedJobKeys(theirs: string, ours: string): string {
  let out = theirs;
  for (const [job, key] of ADDED_JOB_KEYS) {
    const mine = jobSection(ours, job);
    const at = jobSection(out, job);
    if (!mine || !at) continue;
    const section = ours.slice(...mine);
    const line = new RegExp(`\\n {4}${key}: [^\\n]*\\n`).exec(section);
    const target = out.slice(...at);
    if (!line || new RegExp(`\\n {4}${key}:`).test(target)) continue;
    const next = /^ {4}([A-Za-z_][\w-]*):/m.exec(section.slice(line.index + line[0].length));
    const before = next ? target.indexOf(`\n    ${next[1]}:`) : -1;
    if (before < 0) continue;
    const insertAt = at[0] + before;
    out = out.slice(0, insertAt) + line[0].slice(0, -1) + out.slice(insertAt);
  }
  return out;
}
