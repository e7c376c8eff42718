/**
 * Renders Better Auth's table model (from the service's own auth options) as the Drizzle-shaped SQLite DDL
 * that Better Auth 1.6.23's CLI + drizzle-kit produce: snake_case tables and columns, integer-ms dates,
 * 0/1 booleans, JSON text, camelCase index names. `deno task db:schema:generate` prints it; a test keeps
 * it identical to migrations/0001_initial.sql, so a config change that needs a schema change is noticed.
 */
import { getAuthTables } from "better-auth/db";
import type { BetterAuthOptions } from "better-auth";

/** A field as Better Auth describes it. */
interface FieldModel {
  type: string | string[];
  required?: boolean;
  unique?: boolean;
  index?: boolean;
  defaultValue?: unknown;
  references?: { model: string; field: string; onDelete?: string };
}

/** Better Auth's snake_case conversion (as its CLI's Drizzle generator uses it). */
export function toSnakeCase(name: string): string {
  const words = name.match(/[\p{Ll}\d]+|\p{Lu}+(?!\p{Ll})|\p{Lu}[\p{Ll}\d]+|\p{Lo}+/gu) ?? [name];
  return words.map((w) => w.toLowerCase()).join("_");
}

const MS_NOW = "(cast(unixepoch('subsecond') * 1000 as integer))";

function columnSql(key: string, field: FieldModel): string {
  const type = field.type === "boolean" || field.type === "date" || field.type === "number"
    ? "integer"
    : "text";
  let sql = `\t\`${toSnakeCase(key)}\` ${type}`;
  if (field.type === "boolean" && typeof field.defaultValue === "boolean") {
    sql += ` DEFAULT ${field.defaultValue}`;
  }
  if (field.type === "date" && typeof field.defaultValue === "function") sql += ` DEFAULT ${MS_NOW}`;
  if (field.required !== false) sql += " NOT NULL";
  return sql;
}

/** The DDL for `options`, statements separated by drizzle-kit's `--> statement-breakpoint` markers. */
export function generateSchemaSql(options: BetterAuthOptions): string {
  const tables = getAuthTables(options) as unknown as Record<
    string,
    { modelName: string; fields: Record<string, FieldModel> }
  >;
  const tableName = (model: string) => toSnakeCase(tables[model]?.modelName ?? model);
  const statements: string[] = [];
  const models = Object.keys(tables).sort((a, b) => tableName(a).localeCompare(tableName(b)));
  for (const model of models) {
    const table = tableName(model);
    const fields = Object.entries(tables[model].fields);
    const lines = [
      "\t`id` text PRIMARY KEY NOT NULL",
      ...fields.map(([key, field]) => columnSql(key, field)),
    ];
    for (const [key, field] of fields) {
      if (!field.references) continue;
      const ref = field.references;
      lines.push(
        `\tFOREIGN KEY (\`${toSnakeCase(key)}\`) REFERENCES \`${tableName(ref.model)}\`(\`${
          toSnakeCase(ref.field)
        }\`) ON UPDATE no action ON DELETE ${ref.onDelete ?? "cascade"}`,
      );
    }
    statements.push(`CREATE TABLE \`${table}\` (\n${lines.join(",\n")}\n);\n`);
    for (const [key, field] of fields) {
      if (field.unique) {
        const column = toSnakeCase(key);
        statements.push(`CREATE UNIQUE INDEX \`${table}_${column}_unique\` ON \`${table}\` (\`${column}\`);`);
      }
    }
    for (const [key, field] of fields) {
      if (field.index && !field.unique) {
        statements.push(`CREATE INDEX \`${model}_${key}_idx\` ON \`${table}\` (\`${toSnakeCase(key)}\`);`);
      }
    }
  }
  return statements.join("--> statement-breakpoint\n") + "\n";
}
