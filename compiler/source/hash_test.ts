import { assert, assertEquals, assertNotEquals } from "../test_assert.ts";
import {
  canonicalJson,
  computeBodyHash,
  computeFrontmatterHash,
  extractImportsFromText,
  extractRelevantExpressions,
  heredocDelimiter,
} from "./hash.ts";
import type { FileReader } from "../api.ts";

const files = (m: Record<string, string>): FileReader => (p) => Promise.resolve(m[p]);

Deno.test("the frontmatter hash of a lone frontmatter is the SHA-256 of its canonical JSON", async () => {
  const h = await computeFrontmatterHash(".github/workflows/a.md", "---\non: daily\n---\nBody\n", files({}));
  // sha256('{"frontmatter-text":"on: daily"}'), computed independently.
  assertEquals(h, "d8b18e880607c5564fd884ec77ede336b950852eee51ebe72cd6399ae9197d30");
});

Deno.test("prose edits to the body leave the frontmatter hash unchanged but change the body hash", async () => {
  const a = "---\non: daily\n---\nDo the thing.\n";
  const b = "---\non: daily\n---\nDo the other thing.\n";
  const r = files({});
  assertEquals(await computeFrontmatterHash("w.md", a, r), await computeFrontmatterHash("w.md", b, r));
  assertNotEquals(await computeBodyHash("w.md", a, r), await computeBodyHash("w.md", b, r));
});

Deno.test("env and vars expressions in the body are part of the frontmatter hash", async () => {
  const r = files({});
  const plain = await computeFrontmatterHash("w.md", "---\non: daily\n---\nHi\n", r);
  const withEnv = await computeFrontmatterHash("w.md", "---\non: daily\n---\nHi ${{ env.TEAM }}\n", r);
  const withInput = await computeFrontmatterHash("w.md", "---\non: daily\n---\nHi ${{ inputs.x }}\n", r);
  assertNotEquals(plain, withEnv);
  assertEquals(plain, withInput);
});

Deno.test("imported frontmatter changes the importer's hash; CRLF input hashes like LF", async () => {
  const main = "---\non: daily\nimports:\n  - shared/a.md\n---\nBody\n";
  const h1 = await computeFrontmatterHash(
    ".github/workflows/w.md",
    main,
    files({ ".github/workflows/shared/a.md": "---\ntools:\n  edit:\n---\nA\n" }),
  );
  const h2 = await computeFrontmatterHash(
    ".github/workflows/w.md",
    main,
    files({ ".github/workflows/shared/a.md": "---\ntools:\n  bash:\n---\nA\n" }),
  );
  const h3 = await computeFrontmatterHash(
    ".github/workflows/w.md",
    main.replace(/\n/g, "\r\n"),
    files({ ".github/workflows/shared/a.md": "---\ntools:\n  edit:\n---\nA\n" }),
  );
  assertNotEquals(h1, h2);
  assertEquals(h1, h3);
});

Deno.test("the body hash covers imported bodies", async () => {
  const main = "---\non: daily\nimports:\n  - shared/a.md\n---\nBody\n";
  const a = await computeBodyHash(
    ".github/workflows/w.md",
    main,
    files({ ".github/workflows/shared/a.md": "---\n---\nOne\n" }),
  );
  const b = await computeBodyHash(
    ".github/workflows/w.md",
    main,
    files({ ".github/workflows/shared/a.md": "---\n---\nTwo\n" }),
  );
  assertNotEquals(a, b);
});

Deno.test("imports are read from the imports block only, quotes stripped", () => {
  const fm =
    'name: x\nimports:\n  - "shared/a.md"\n  # comment\n  - shared/b.md\ntools:\n  - not-an-import\n';
  assertEquals(extractImportsFromText(fm), ["shared/a.md", "shared/b.md"]);
});

Deno.test("relevant expressions are unique and sorted", () => {
  assertEquals(extractRelevantExpressions("${{ vars.B }} ${{ env.A }} ${{ env.A }} ${{ inputs.c }}"), [
    "${{ env.A }}",
    "${{ vars.B }}",
  ]);
});

Deno.test("canonical JSON sorts keys recursively", () => {
  assertEquals(
    canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: "x" } }),
    '{"a":{"c":"x","d":[2,{"y":2,"z":1}]},"b":1}',
  );
});

Deno.test("heredoc delimiters are HMAC-SHA256 of the name keyed by the frontmatter hash", () => {
  assertEquals(heredocDelimiter("PROMPT", "abc"), "GH_AW_PROMPT_859432c0956ed2e3_EOF");
  assert(heredocDelimiter("PROMPT", "abd") !== heredocDelimiter("PROMPT", "abc"));
});
