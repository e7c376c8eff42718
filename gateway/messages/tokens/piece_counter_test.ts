import assert from "node:assert/strict";
import o200k from "gpt-tokenizer/encoding/o200k_base";
import cl100k from "gpt-tokenizer/encoding/cl100k_base";
import { CL100K_TOKEN_SPLIT_REGEX, O200K_TOKEN_SPLIT_REGEX } from "gpt-tokenizer/encodingParams/constants";
import { get_encoding } from "tiktoken";
import {
  createPieceCounter,
  type EncodingApi,
  MergeBudgetExceeded,
  tiktokenSplitRegex,
} from "./piece_counter.ts";
import { cl100kPieceEnd, NEEDS_REGEX, o200kPieceEnd } from "./split_scan.ts";
import { hashOf, MAX_PROBES, PieceTable } from "./piece_table.ts";
import { mergeAsciiPiece } from "./byte_pair.ts";

const ENCODINGS = [
  {
    name: "o200k_base",
    api: o200k,
    regex: O200K_TOKEN_SPLIT_REGEX,
    pieceEnd: o200kPieceEnd,
    tiktoken: get_encoding("o200k_base"),
  },
  {
    name: "cl100k_base",
    api: cl100k,
    regex: CL100K_TOKEN_SPLIT_REGEX,
    pieceEnd: cl100kPieceEnd,
    tiktoken: get_encoding("cl100k_base"),
  },
] as const;
const noSpecial = { disallowedSpecial: new Set<string>() };

function counterOf(encoding: (typeof ENCODINGS)[number]) {
  return createPieceCounter(encoding.name, encoding.api as unknown as EncodingApi, encoding.regex);
}

/** A seeded generator, so a failure reproduces. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => (state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32;
}

const ATOMS = [
  // prose and code
  "the",
  "The",
  "THE",
  "word",
  " word",
  "HTTPServer",
  "camelCase",
  "snake_case",
  "x",
  "I",
  "a",
  "JSON.parse(",
  "=>",
  "();",
  "{",
  "}",
  "[",
  "]",
  "//",
  "/",
  "a/b",
  "/\n/",
  "...",
  "!?",
  "#",
  "--",
  "==",
  '"',
  "`",
  "-",
  "_",
  // contractions in mixed case, apostrophes alone
  "don't",
  "DON'T",
  "we'll",
  "We'LL",
  "I'm",
  "they've",
  "you're",
  "he'd",
  "it's",
  "'s",
  "'S",
  "'t",
  "'re",
  "'Ve",
  "'m",
  "'ll",
  "'LL",
  "'d",
  "'D",
  "'",
  "''",
  "'ll've",
  "'x",
  // whitespace runs, trailing spaces, newlines, \r\n
  " ",
  "  ",
  "   ",
  "    ",
  "\t",
  "\t\t",
  "\n",
  "\r\n",
  "\r",
  "\n\n",
  " \n",
  "\n ",
  "  \n  ",
  "\v",
  "\f",
  // digit runs of 1 to 5
  "0",
  "12",
  "123",
  "1234",
  "12345",
  "3.14",
  "v2",
  // non-ASCII: CJK, emoji, combining marks, Cyrillic, RTL, Unicode spaces and digits, letters of every case
  "日本語",
  "中文",
  "😀",
  "👍🏽",
  "🇺🇸",
  "é",
  "e\u0301",
  "\u0301",
  "x\u0301\u0302",
  "Привет",
  "мир",
  "שלום",
  "مرحبا",
  "\u200f",
  "\u00a0",
  "\u2028",
  "\u3000",
  "–",
  "—",
  "≈",
  "→",
  "…",
  "“",
  "’",
  "µs",
  "ß",
  "ǅ",
  "Ⅻ",
  "²",
  "٣",
  "\ufeff",
  "\u0085",
  "\x00",
  "\x1f",
  "\x7f",
  // text that spells a special token
  "<|endoftext|>",
  "<|im_start|>",
];

const BLOCKS = [[0x80, 0x2ff], [0x2000, 0x2bff], [0x3000, 0x303f], [0xfe30, 0xfe6f], [0xff00, 0xff65]];

function mixedText(next: () => number): string {
  const parts = 1 + Math.floor(next() * 16);
  let text = "";
  for (let i = 0; i < parts; i++) {
    const roll = next();
    if (roll < 0.7) text += ATOMS[Math.floor(next() * ATOMS.length)];
    else if (roll < 0.8) text += " ".repeat(1 + Math.floor(next() * 6));
    else if (roll < 0.85) text += String(Math.floor(next() * 100_000));
    else if (roll < 0.9) { // any character of the blocks the scanner classifies (punctuation, symbols, and
      // the letters, numbers, marks and spaces among them)
      const [from, to] = BLOCKS[Math.floor(next() * BLOCKS.length)];
      text += String.fromCharCode(from + Math.floor(next() * (to - from + 1)));
    } else text += String.fromCharCode(32 + Math.floor(next() * 95)); // any printable ASCII
  }
  return text;
}

const repoText = (await Promise.all(
  ["../../../docs/gateway.md", "../../../README.md", "../openai_tokens.ts", "../../app.ts"].map((path) =>
    Deno.readTextFile(new URL(path, import.meta.url))
  ),
)).join("\n");

for (const encoding of ENCODINGS) {
  Deno.test(`${encoding.name}: the char-code pre-tokenizer splits exactly as the encoding's regex`, () => {
    const next = random(11);
    for (let round = 0; round < 3_000; round++) {
      const text = round % 10 === 0
        ? repoText.slice(Math.floor(next() * repoText.length)).slice(0, 400)
        : mixedText(next);
      let p = 0;
      for (const match of text.matchAll(tiktokenSplitRegex(encoding.regex, "gu"))) {
        assert.equal(match.index, p, JSON.stringify(text));
        const end = encoding.pieceEnd(text, p, text.length);
        if (end !== NEEDS_REGEX) {
          assert.equal(text.slice(p, end), match[0], `${JSON.stringify(text)} at ${p}`);
        }
        p += match[0].length;
      }
      assert.equal(p, text.length);
    }
  });

  Deno.test(`${encoding.name}: U+FEFF and U+0085 split as tiktoken splits them, not as JavaScript's \\s does`, () => {
    const counter = counterOf(encoding);
    for (
      const text of ["a\ufeff b", "x  \ufeff\ufeffy", "a\u0085\u0085 b", "end\u0085", "\ufeff\n\ufeff 1"]
    ) {
      assert.equal(counter.count(text), encoding.tiktoken.encode_ordinary(text).length, JSON.stringify(text));
    }
  });

  Deno.test(`${encoding.name}: counts equal gpt-tokenizer's encode and tiktoken's on seeded mixed text`, () => {
    const counter = counterOf(encoding);
    assert.ok(counter.direct, "gpt-tokenizer's byte-pair encoder is reached directly (fast path)");
    const next = random(encoding.name === "o200k_base" ? 1 : 2);
    for (let round = 0; round < 4_000; round++) {
      const text = mixedText(next);
      const expected = encoding.tiktoken.encode_ordinary(text).length;
      assert.equal(counter.count(text), expected, JSON.stringify(text));
      if (!/[\ufeff\u0085]/.test(text)) { // where gpt-tokenizer's split differs from tiktoken's (see above)
        assert.equal(
          encoding.api.encode(text, noSpecial).length,
          expected,
          `gpt-tokenizer: ${JSON.stringify(text)}`,
        );
      }
      if (round % 500 === 0) counter.clear(); // both from scratch and from a warm table
    }
  });

  Deno.test(`${encoding.name}: counts equal tiktoken's on the repository's docs and code, cold and warm`, () => {
    const counter = counterOf(encoding);
    const next = random(3);
    for (let round = 0; round < 60; round++) {
      const start = Math.floor(next() * repoText.length);
      const text = repoText.slice(start, start + Math.floor(next() * 6_000));
      assert.equal(counter.count(text), encoding.tiktoken.encode_ordinary(text).length, `at ${start}`);
    }
    counter.clear();
    const whole = encoding.tiktoken.encode_ordinary(repoText).length;
    assert.equal(counter.count(repoText), whole);
    assert.equal(counter.count(repoText), whole);
  });

  Deno.test(`${encoding.name}: counts equal tiktoken's on every text of the recorded count_tokens set`, async () => {
    const recorded = JSON.parse(
      await Deno.readTextFile(
        new URL("../../../tests/gateway/token_counts/openai_counts.json", import.meta.url),
      ),
    ) as Array<{ request: unknown }>;
    const texts: string[] = [];
    const collect = (value: unknown): void => {
      if (typeof value === "string") texts.push(value);
      else if (Array.isArray(value)) value.forEach(collect);
      else if (value && typeof value === "object") Object.values(value).forEach(collect);
    };
    for (const entry of recorded) collect(entry.request);
    assert.ok(texts.length > 200, String(texts.length));
    const counter = counterOf(encoding);
    for (const text of texts) {
      assert.equal(counter.count(text), encoding.tiktoken.encode_ordinary(text).length, text.slice(0, 80));
    }
  });
}

Deno.test("the ASCII merge gives gpt-tokenizer's byte-pair count for words, identifiers and runs", () => {
  const core = (o200k as unknown as {
    bytePairEncodingCoreProcessor: {
      bytePairStringRankEncoder: Map<string, number>;
      bytePairEncode(piece: string): number[];
    };
  }).bytePairEncodingCoreProcessor;
  const ranks = core.bytePairStringRankEncoder;
  const next = random(5);
  for (let round = 0; round < 3_000; round++) {
    let piece = round % 2 ? " " : "";
    const length = 2 + Math.floor(next() * 14);
    const letters = round % 3 !== 0; // words, or any printable ASCII
    for (let i = 0; i < length; i++) {
      piece += String.fromCharCode(letters ? 97 + Math.floor(next() * 26) : 33 + Math.floor(next() * 94));
    }
    if (ranks.has(piece)) continue;
    assert.equal(mergeAsciiPiece(piece, ranks), core.bytePairEncode(piece).length, JSON.stringify(piece));
  }
});

Deno.test("PieceTable: pieces with the same hash are told apart by their text, never confused", () => {
  const table = new PieceTable(4, 8);
  const text = "abcabdabe";
  const collide = 42;
  table.set(text, 0, 3, collide, 1);
  table.set(text, 3, 6, collide, 2);
  assert.equal(table.get(text, 0, 3, collide), 1);
  assert.equal(table.get(text, 3, 6, collide), 2);
  assert.equal(table.get(text, 6, 9, collide), -1); // same hash and length, other text
  assert.equal(table.get("xabc", 1, 4, collide), 1); // the same text elsewhere
  assert.equal(table.get(text, 0, 3, hashOf(text, 0, 3)), -1); // a different hash is a different key
});

Deno.test("PieceTable: a run of colliding pieces is cut at MAX_PROBES; lookups never confuse or loop", () => {
  const table = new PieceTable(1 << 10, 1 << 10);
  const words = Array.from({ length: 100 }, (_, i) => `p${i}q`);
  const collide = 7;
  const kept = words.map((w, i) => table.set(w, 0, w.length, collide, i + 1));
  assert.equal(kept.filter(Boolean).length, MAX_PROBES, "no more than MAX_PROBES share one run");
  assert.ok(kept.slice(0, MAX_PROBES).every(Boolean));
  words.forEach((w, i) => assert.equal(table.get(w, 0, w.length, collide), kept[i] ? i + 1 : -1));
});

Deno.test("PieceTable: the hash starts from a per-process random value, not FNV-1a's fixed one", () => {
  let fixed = 0x811c9dc5 | 0;
  for (const c of "collide") fixed = Math.imul(fixed ^ c.charCodeAt(0), 0x01000193);
  assert.notEqual(hashOf("collide", 0, 7), fixed); // equal by chance once in 2^31 processes
});

Deno.test("a merge budget: past it the count throws MergeBudgetExceeded, and nothing wrong is kept", () => {
  const counter = counterOf(ENCODINGS[0]);
  const words = Array.from({ length: 400 }, (_, i) => ` zq${i.toString(36)}vx${(i * 7919).toString(36)}`)
    .join("");
  counter.setMergeBudget(200);
  assert.throws(() => counter.count(words), MergeBudgetExceeded);
  counter.setMergeBudget(Infinity);
  assert.equal(counter.count(words), ENCODINGS[0].tiktoken.encode_ordinary(words).length);
});

Deno.test("PieceTable: bounded — it grows to its maximum, then starts over", () => {
  const table = new PieceTable(4, 16);
  const words = Array.from({ length: 40 }, (_, i) => `w${i}x`);
  for (const word of words) {
    if (table.get(word, 0, word.length, hashOf(word, 0, word.length)) < 0) {
      table.set(word, 0, word.length, hashOf(word, 0, word.length), word.length);
    }
    assert.ok(table.size <= 8, String(table.size));
  }
  assert.ok(table.resets >= 2, String(table.resets));
  const last = words.at(-1)!;
  assert.equal(table.get(last, 0, last.length, hashOf(last, 0, last.length)), last.length);
});

for (const encoding of ENCODINGS) {
  Deno.test(`${encoding.name}: long pieces (merged by the heap) count as tiktoken counts them`, () => {
    const counter = counterOf(encoding);
    const next = random(17);
    const alphabets = [" ", "-=", "ab", "aaab", "xyz", "語", "日本", "é", "0", "*-", "\t ", "🙂"];
    for (let round = 0; round < 120; round++) {
      const alphabet = alphabets[round % alphabets.length];
      const length = 100 + Math.floor(next() * 1_500);
      let text = round % 3 === 0 ? "x" : "";
      for (let i = 0; i < length; i++) {
        text += round % 2 ? alphabet[Math.floor(next() * alphabet.length)] : alphabet;
      }
      if (round % 3 === 0) text += "y";
      assert.equal(
        counter.count(text),
        encoding.tiktoken.encode_ordinary(text).length,
        `${round}: ${text.slice(0, 40)}`,
      );
    }
  });
}

Deno.test("a run of 100k identical characters (one piece) counts in well under quadratic time", () => {
  const counter = counterOf(ENCODINGS[0]);
  for (const run of [" ".repeat(100_000), "-".repeat(100_000), "語".repeat(100_000)]) {
    const started = performance.now();
    const tokens = counter.count(`a${run}b`);
    const took = performance.now() - started;
    assert.ok(tokens > 0);
    // ~0.1–0.4 s here; a merge that rescans every pair per merge takes minutes.
    assert.ok(took < 5_000, `${took.toFixed(0)} ms`);
  }
});
