/**
 * The ledger's hourly and daily rollups (migrations 0005/0006), written with each batch: the batch's rows are
 * summed per bucket, key, model and provider, and each sum is added to its rollup row in the same transaction
 * as the rows themselves, so the Usage page's sums always equal the ledger's. A batch of 200 rows from a few
 * keys and models costs a handful of upserts, where a per-row trigger cost 400.
 *
 * Both statements are plain SQL texts with positional arguments, kept per row count, run through Kysely's
 * `executeQuery` (so a remote libSQL database takes the same path): building a 200-row INSERT with Kysely's
 * query builder (4,000 value nodes, then compiled) was most of the ledger's CPU per row (bench:ledger).
 */
import { CompiledQuery, type Kysely } from "kysely";
import { USAGE_COLUMNS, USAGE_WIDTH, type UsageDatabase, type UsageRow, usageValues } from "./row.ts";

/** Bucket widths kept: an hour and a UTC day, in ms. */
export const ROLLUP_WIDTHS = [3_600_000, 86_400_000] as const;

/** The rollup table's columns, in the order of {@link rollupIncrements}' values. */
export const ROLLUP_COLUMNS = [
  "width",
  "start",
  "key_id",
  "model",
  "provider",
  "requests",
  "errors",
  "input_tokens",
  "output_tokens",
  "cost_usd",
  "latency_sum",
  "max_latency_ms",
] as const;

const ROLLUP_WIDTH = ROLLUP_COLUMNS.length;

// Where a row's values sit in usageValues' flat array.
const AT = USAGE_COLUMNS.indexOf("at");
const KEY_ID = USAGE_COLUMNS.indexOf("key_id");
const MODEL = USAGE_COLUMNS.indexOf("model");
const PROVIDER = USAGE_COLUMNS.indexOf("provider");
const INPUT = USAGE_COLUMNS.indexOf("input_tokens");
const OUTPUT = USAGE_COLUMNS.indexOf("output_tokens");
const COST = USAGE_COLUMNS.indexOf("cost_usd");
const STATUS = USAGE_COLUMNS.indexOf("status");
const LATENCY = USAGE_COLUMNS.indexOf("latency_ms");

/**
 * The rows of `values` (flat, as {@link usageValues}) summed per bucket (hour and day), key, model and
 * provider: the rollup upsert's arguments, flat in {@link ROLLUP_COLUMNS} order, one group per sum.
 */
export function rollupIncrements(values: readonly unknown[]): unknown[] {
  // Each sum's offset in `sums`, by bucket, key, model and provider.
  const offsets = new Map<string, number>();
  const sums: unknown[] = [];
  for (let r = 0; r < values.length; r += USAGE_WIDTH) {
    const at = values[r + AT] as number;
    const keyId = values[r + KEY_ID] as string;
    const model = values[r + MODEL] as string;
    const provider = (values[r + PROVIDER] as string | null) ?? "";
    const latency = values[r + LATENCY] as number;
    for (const width of ROLLUP_WIDTHS) {
      const start = at - at % width;
      const key = `${width}\0${start}\0${keyId}\0${model}\0${provider}`;
      let o = offsets.get(key);
      if (o === undefined) {
        o = sums.length;
        offsets.set(key, o);
        sums.push(width, start, keyId, model, provider, 0, 0, 0, 0, 0, 0, -Infinity);
      }
      (sums[o + 5] as number)++;
      if ((values[r + STATUS] as number) >= 400) (sums[o + 6] as number)++;
      sums[o + 7] = (sums[o + 7] as number) + (values[r + INPUT] as number);
      sums[o + 8] = (sums[o + 8] as number) + (values[r + OUTPUT] as number);
      sums[o + 9] = (sums[o + 9] as number) + (values[r + COST] as number);
      sums[o + 10] = (sums[o + 10] as number) + latency;
      sums[o + 11] = Math.max(sums[o + 11] as number, latency);
    }
  }
  return sums;
}

const quoted = (columns: readonly string[]) => columns.map((c) => `"${c}"`).join(", ");

/** `count` groups of `width` placeholders: `(?, ?), (?, ?)`. */
function placeholders(count: number, width: number): string {
  const group = `(${new Array(width).fill("?").join(", ")})`;
  return new Array(count).fill(group).join(", ");
}

const INSERT_HEAD = `insert into "gateway_usage" (${quoted(USAGE_COLUMNS)}) values `;
const ROLLUP_HEAD = `insert into "gateway_usage_rollup" (${quoted(ROLLUP_COLUMNS)}) values `;
const ROLLUP_TAIL = ` on conflict ("width", "start", "key_id", "model", "provider") do update set ` +
  ["requests", "errors", "input_tokens", "output_tokens", "cost_usd", "latency_sum"]
    .map((c) => `"${c}" = "${c}" + "excluded"."${c}"`).join(", ") +
  `, "max_latency_ms" = max(max_latency_ms, excluded.max_latency_ms)`;

/**
 * Most rows per statement: a larger batch is written as several statements of this many rows (one kept text)
 * in its one transaction, well inside SQLite's limits on bound variables and on the rows of a VALUES list.
 */
export const MAX_INSERT_ROWS = 200;

/** SQL texts per row count (at most MAX_INSERT_ROWS, so at most that many of each). */
const insertTexts = new Map<number, string>();
const rollupTexts = new Map<number, string>();

function textFor(texts: Map<number, string>, count: number, build: (count: number) => string): string {
  let text = texts.get(count);
  if (text === undefined) {
    text = build(count);
    texts.set(count, text);
  }
  return text;
}

/** The multi-row INSERT of `count` ledger rows. */
export function usageInsertSql(count: number): string {
  return textFor(insertTexts, count, (n) => INSERT_HEAD + placeholders(n, USAGE_WIDTH));
}

/** The rollup upsert of `count` sums. */
export function rollupUpsertSql(count: number): string {
  return textFor(rollupTexts, count, (n) => ROLLUP_HEAD + placeholders(n, ROLLUP_WIDTH) + ROLLUP_TAIL);
}

/**
 * Inserts a batch given as {@link usageValues} (flat, row after row) and adds it to the rollups, in one
 * transaction (two statements, or more for a batch over {@link MAX_INSERT_ROWS} rows).
 */
export async function writeUsageValues(db: Kysely<UsageDatabase>, values: unknown[]): Promise<void> {
  if (values.length % USAGE_WIDTH !== 0) {
    throw new Error(`a ledger batch has ${USAGE_WIDTH} values per row, got ${values.length} values`);
  }
  const rows = values.length / USAGE_WIDTH;
  if (rows === 0) return;
  const sums = rollupIncrements(values);
  const inserts: CompiledQuery[] = [];
  if (rows <= MAX_INSERT_ROWS) inserts.push(CompiledQuery.raw(usageInsertSql(rows), values));
  else {
    for (let first = 0; first < rows; first += MAX_INSERT_ROWS) {
      const chunk = values.slice(first * USAGE_WIDTH, (first + MAX_INSERT_ROWS) * USAGE_WIDTH);
      inserts.push(CompiledQuery.raw(usageInsertSql(chunk.length / USAGE_WIDTH), chunk));
    }
  }
  const upserts: CompiledQuery[] = [];
  for (let first = 0; first < sums.length; first += MAX_INSERT_ROWS * ROLLUP_WIDTH) {
    const chunk = sums.length <= MAX_INSERT_ROWS * ROLLUP_WIDTH
      ? sums
      : sums.slice(first, first + MAX_INSERT_ROWS * ROLLUP_WIDTH);
    upserts.push(CompiledQuery.raw(rollupUpsertSql(chunk.length / ROLLUP_WIDTH), chunk));
  }
  await db.transaction().execute(async (tx) => {
    for (const insert of inserts) await tx.executeQuery(insert);
    for (const upsert of upserts) await tx.executeQuery(upsert);
  });
}

/** Inserts a batch of ledger rows and adds them to the rollups, in one transaction. */
export function writeUsageBatch(db: Kysely<UsageDatabase>, rows: readonly UsageRow[]): Promise<void> {
  return writeUsageValues(db, usageValues(rows));
}
