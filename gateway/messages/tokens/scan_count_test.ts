import assert from "node:assert/strict";
import { CL100K_TOKEN_SPLIT_REGEX, O200K_TOKEN_SPLIT_REGEX } from "gpt-tokenizer/encodingParams/constants";
import { tiktokenSplitRegex } from "./piece_counter.ts";
import * as table from "./piece_table.ts";
import { PieceTable } from "./piece_table.ts";
import { cl100kCount, type CountSteps, LETTER_RANGES, LOCAL_CONSTANTS, o200kCount } from "./scan_count.ts";
import * as split from "./split_scan.ts";

Deno.test("scan_count's own copies of the constants are the modules' they come from", () => {
  const from = { ...split, ...table } as Record<string, unknown>;
  for (const [name, value] of Object.entries(LOCAL_CONSTANTS)) {
    assert.notEqual(from[name], undefined, `${name} is exported by split_scan.ts or piece_table.ts`);
    assert.equal(value, from[name], name);
  }
});

Deno.test("the letter classes are the ranges the loops test in their place", () => {
  for (const [name, [from, to]] of Object.entries(LETTER_RANGES)) {
    const code = split[name as keyof typeof LETTER_RANGES];
    for (let c = 0; c < 65_536; c++) {
      assert.equal(split.CLASS[c] === code, c >= from && c <= to, `${name} at ${c}`);
    }
  }
});

/** Seeded xorshift in [0, 1). */
function random(seed: number): () => number {
  let x = seed | 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

/** Characters each loop treats apart: letters of both cases, digits, spaces, newlines, ASCII and other punctuation, the apostrophe and slash, and characters only the regex knows. */
const ALPHABET = [
  ..."abcxyzABCXYZ",
  ..."0123456789",
  " ",
  " ",
  " ",
  "\t",
  "\n",
  "\r",
  "'",
  "'",
  "/",
  ...'.,;:!?()[]{}<>"`*#-_=+|\\',
  ..."—“”…→≈",
  ..."éßÉ",
  "\u00a0",
  "\u3000",
  "\ufeff",
  "\u0085",
  "😀",
  "٣",
];
const WORDS = [
  "'s",
  "'ll",
  "'RE",
  "'Ve",
  "'d",
  "'M",
  "'t",
  " the",
  " Hello",
  "HTTPServer",
  "camelCase",
  "don't",
];

function splitText(next: () => number): string {
  let text = "";
  const parts = 1 + Math.floor(next() * 24);
  for (let i = 0; i < parts; i++) {
    text += next() < 0.2
      ? WORDS[Math.floor(next() * WORDS.length)]
      : ALPHABET[Math.floor(next() * ALPHABET.length)].repeat(1 + Math.floor(next() * 3));
  }
  return text;
}

for (
  const [name, makeCount, regex] of [
    ["o200k_base", o200kCount, O200K_TOKEN_SPLIT_REGEX],
    ["cl100k_base", cl100kCount, CL100K_TOKEN_SPLIT_REGEX],
  ] as const
) {
  Deno.test(`${name}: the counting loop splits exactly as the encoding's regex`, () => {
    // A loop over an empty table that keeps nothing reports each piece it looks up or leaves to the regex; the
    // only pieces it counts unreported are single ASCII characters (one token each), the gaps between the rest.
    const sticky = tiktokenSplitRegex(regex);
    let reported: Array<[number, number]> = [];
    const steps: CountSteps = {
      pieces: new PieceTable(),
      twoChars: undefined,
      counted: 1,
      regexPiece(text, p) {
        sticky.lastIndex = p;
        const end = p + sticky.exec(text)![0].length;
        reported.push([p, end]);
        return end;
      },
      unknownPiece(_text, p, end) {
        reported.push([p, end]);
        return 1;
      },
    };
    const count = makeCount(steps);
    const next = random(name === "o200k_base" ? 5 : 6);
    for (let round = 0; round < 5_000; round++) {
      const text = splitText(next);
      reported = [];
      const tokens = count(text);
      const pieces: string[] = [];
      let at = 0;
      for (const [p, end] of reported) {
        for (; at < p; at++) pieces.push(text[at]); // unreported: one ASCII character each
        pieces.push(text.slice(p, end));
        at = end;
      }
      for (; at < text.length; at++) pieces.push(text[at]);
      const expected = [...text.matchAll(tiktokenSplitRegex(regex, "gu"))].map((match) => match[0]);
      assert.deepEqual(pieces, expected, JSON.stringify(text));
      assert.equal(tokens, expected.length, JSON.stringify(text));
    }
  });
}
