/**
 * A Kysely plugin that stores Better Auth's dates as integer epoch milliseconds. The Kysely adapter of
 * Better Auth 1.6.23 writes dates as ISO-8601 strings (and compares with them), while the schema of
 * migrations/0001_initial.sql stores integers: SQLite would keep the strings as TEXT and compare
 * `INTEGER < TEXT` as always true, so the library's `DELETE … WHERE expires_at < '<iso>'` cleanup would wipe
 * unexpired rows. This plugin converts ISO strings (and `Date`s) to milliseconds in INSERT values, UPDATE
 * assignments and comparisons on date columns, and turns integer date columns of results back into ISO
 * strings, which the adapter parses into `Date`s.
 */
import {
  type BinaryOperationNode,
  ColumnNode,
  type InsertQueryNode,
  type KyselyPlugin,
  type OperationNode,
  OperationNodeTransformer,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  PrimitiveValueListNode,
  type QueryResult,
  ReferenceNode,
  type RootOperationNode,
  type UnknownRow,
  type UpdateQueryNode,
  ValueListNode,
  ValueNode,
  ValuesNode,
} from "kysely";

/** Date columns of the auth schema, in both spellings (the plugin may run before or after camel mapping). */
export const DATE_COLUMNS: ReadonlySet<string> = new Set([
  "created_at",
  "updated_at",
  "expires_at",
  "access_token_expires_at",
  "refresh_token_expires_at",
  "revoked",
  "auth_time",
  "createdAt",
  "updatedAt",
  "expiresAt",
  "accessTokenExpiresAt",
  "refreshTokenExpiresAt",
  "authTime",
]);

const ISO_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z$/;

/** Epoch milliseconds for a `Date` or an exact `toISOString()` string; anything else unchanged. */
export function toEpochMs(value: unknown): unknown {
  if (value instanceof Date) return value.getTime();
  if (typeof value === "string" && ISO_DATE.test(value)) return Date.parse(value);
  return value;
}

function columnName(node: OperationNode | undefined): string | undefined {
  if (!node) return undefined;
  if (ColumnNode.is(node)) return node.column.name;
  if (ReferenceNode.is(node) && ColumnNode.is(node.column)) return node.column.column.name;
  return undefined;
}

function convertValueNode(node: OperationNode): OperationNode {
  if (ValueNode.is(node)) return ValueNode.create(toEpochMs(node.value));
  if (PrimitiveValueListNode.is(node)) return PrimitiveValueListNode.create(node.values.map(toEpochMs));
  return node;
}

class EpochMsTransformer extends OperationNodeTransformer {
  protected override transformInsertQuery(node: InsertQueryNode): InsertQueryNode {
    const out = super.transformInsertQuery(node);
    const columns = (out.columns ?? []).map((c) => c.column.name);
    if (!out.values || !ValuesNode.is(out.values) || !columns.some((c) => DATE_COLUMNS.has(c))) return out;
    const isDate = (i: number) => DATE_COLUMNS.has(columns[i]);
    const rows = out.values.values.map((row) => {
      if (PrimitiveValueListNode.is(row)) {
        return PrimitiveValueListNode.create(row.values.map((v, i) => isDate(i) ? toEpochMs(v) : v));
      }
      if (ValueListNode.is(row)) {
        return ValueListNode.create(row.values.map((v, i) => isDate(i) ? convertValueNode(v) : v));
      }
      return row;
    });
    return Object.freeze({ ...out, values: ValuesNode.create(rows) });
  }

  protected override transformUpdateQuery(node: UpdateQueryNode): UpdateQueryNode {
    const out = super.transformUpdateQuery(node);
    if (!out.updates) return out;
    const updates = out.updates.map((update) =>
      DATE_COLUMNS.has(columnName(update.column) ?? "")
        ? Object.freeze({ ...update, value: convertValueNode(update.value) })
        : update
    );
    return Object.freeze({ ...out, updates: Object.freeze(updates) });
  }

  protected override transformBinaryOperation(node: BinaryOperationNode): BinaryOperationNode {
    const out = super.transformBinaryOperation(node);
    if (!DATE_COLUMNS.has(columnName(out.leftOperand) ?? "")) return out;
    return Object.freeze({ ...out, rightOperand: convertValueNode(out.rightOperand) });
  }
}

/** The Kysely plugin; use it after `CamelCasePlugin`. */
export class EpochMsDatePlugin implements KyselyPlugin {
  readonly #transformer = new EpochMsTransformer();

  /** Converts dates in the query to epoch milliseconds. */
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.#transformer.transformNode(args.node);
  }

  /** Converts integer date columns of the result rows to ISO strings. */
  transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    const rows = args.result.rows;
    if (!rows?.length) return Promise.resolve(args.result);
    const converted = rows.map((row) => {
      const copy: UnknownRow = { ...row };
      for (const key of Object.keys(copy)) {
        const value = copy[key];
        if (DATE_COLUMNS.has(key) && typeof value === "number") copy[key] = new Date(value).toISOString();
      }
      return copy;
    });
    return Promise.resolve({ ...args.result, rows: converted });
  }
}
