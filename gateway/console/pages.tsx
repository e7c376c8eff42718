/**
 * The console's page handlers, one per route, each given the signed-in session. They only read and write
 * through the stores the gateway already has (keys/store.ts, the limit counters, the ledger aggregates of
 * usage/series.ts, the circuit breakers); a form with problems re-renders with each error next to its field.
 */
import type { Kysely } from "kysely";
import type { ProviderSettings } from "../providers/contract.ts";
import type { CircuitBreakers } from "../upstream/circuit_breaker.ts";
import type { LimitCounters } from "../limits/counters.ts";
import { periodOf } from "../limits/enforcer.ts";
import { ApiKeyStore, type KeysDatabase } from "../keys/store.ts";
import type { UsageDatabase } from "../usage/ledger.ts";
import { aggregateBy, aggregateUsage, latestRequests, requestsPerKey } from "../usage/series.ts";
import { htmlResponse, MessagePage } from "./layout.tsx";
import type { FrameUser } from "./layout.tsx";
import { EditKeyPage, type KeyRow, KeysPage, RevokeKeyPage } from "./keys_page.tsx";
import { keyFormValues, parseKeyForm, valuesOfKey } from "./key_form.ts";
import { parseUsageQuery } from "./usage_query.ts";
import { UsagePage } from "./usage_page.tsx";
import { parseRequestFilters, RequestsPage } from "./requests_page.tsx";
import { type ProviderRow, ProvidersPage } from "./providers_page.tsx";
import { CONSOLE_PATH } from "./settings.ts";

/** What the pages read and change. */
export interface PageDeps {
  db: () => Promise<Kysely<KeysDatabase & UsageDatabase>>;
  counters: LimitCounters;
  breakers: CircuitBreakers;
  providers: readonly ProviderSettings[];
  /** Called after a key changed, so this instance's key cache sees it at once. */
  keysChanged: () => void;
  /** The OP origin (the CSP's form-action). */
  formTarget: string;
  now: () => number;
}

const DAY = 86_400_000;

/** The page handlers. */
export function createPages(deps: PageDeps) {
  const html = (node: unknown, status = 200) => htmlResponse(node, deps.formTarget, status);
  const store = async () => new ApiKeyStore(await deps.db());
  const keyNames = async () => new Map((await (await store()).list()).map((k) => [k.id, k.name]));

  const keysPage = async (
    user: FrameUser,
    extra: Omit<Parameters<typeof KeysPage>[0], "user" | "rows" | "now"> = {},
    status = 200,
  ) => {
    const now = deps.now();
    const keys = await (await store()).list();
    const day = await requestsPerKey(await deps.db(), now - DAY);
    const rows: KeyRow[] = await Promise.all(keys.map(async (key) => {
      const row: KeyRow = { key, day: day.get(key.id) };
      const limited = key.rpm !== null || key.tpm !== null || key.maxConcurrency !== null ||
        key.budgetUsd !== null;
      if (!key.revokedAt && limited) {
        const period = key.budgetPeriod === "day" || key.budgetPeriod === "month"
          ? periodOf(key.budgetPeriod, now).name
          : "none";
        row.live = await deps.counters.snapshot(key.id, period).catch(() => undefined);
      }
      return row;
    }));
    return html(KeysPage({ user, rows, now, ...extra }), status);
  };

  const activeKey = async (id: string) =>
    (await (await store()).list()).find((k) => k.id === id && !k.revokedAt);

  return {
    keys: (user: FrameUser, url: URL) => {
      const notice = url.searchParams.get("revoked")
        ? `Key ${url.searchParams.get("revoked")} was revoked.`
        : url.searchParams.get("updated")
        ? `Limits of ${url.searchParams.get("updated")} were saved.`
        : undefined;
      return keysPage(user, { notice });
    },

    createKey: async (user: FrameUser, form: FormData) => {
      const values = keyFormValues(form);
      const parsed = parseKeyForm(values, false, deps.now());
      if (!parsed.ok) return keysPage(user, { values, errors: parsed.errors }, 400);
      const created = await (await store()).create(parsed.name, parsed.settings);
      deps.keysChanged();
      return keysPage(user, { created: { ...created, name: parsed.name } });
    },

    editKey: async (user: FrameUser, id: string) => {
      const key = await activeKey(id);
      if (!key) return notFoundPage();
      return html(EditKeyPage({ user, key, values: valuesOfKey(key) }));
    },

    updateKey: async (user: FrameUser, id: string, form: FormData) => {
      const key = await activeKey(id);
      if (!key) return notFoundPage();
      const values = keyFormValues(form);
      const parsed = parseKeyForm(values, true, deps.now());
      if (!parsed.ok) return html(EditKeyPage({ user, key, values, errors: parsed.errors }), 400);
      if (!await (await store()).update(id, parsed.settings)) return notFoundPage();
      deps.keysChanged();
      return redirect(`${CONSOLE_PATH}/keys?updated=${encodeURIComponent(id)}`);
    },

    confirmRevoke: async (user: FrameUser, id: string) => {
      const key = await activeKey(id);
      if (!key) return notFoundPage();
      return html(RevokeKeyPage({ user, key }));
    },

    revokeKey: async (_user: FrameUser, id: string) => {
      if (!await (await store()).revoke(id, deps.now())) return notFoundPage();
      deps.keysChanged();
      return redirect(`${CONSOLE_PATH}/keys?revoked=${encodeURIComponent(id)}`);
    },

    usage: async (user: FrameUser, url: URL) => {
      const { values, errors, query } = parseUsageQuery(url.searchParams, deps.now());
      const exportQuery = new URLSearchParams(values).toString();
      if (!query) return html(UsagePage({ user, values, errors, exportQuery }), 400);
      const db = await deps.db();
      const { totals, series, groups } = await aggregateUsage(db, query, query.step, query.by);
      const names = query.by === "key" ? await keyNames() : new Map<string, string>();
      return html(
        UsagePage({
          user,
          values,
          errors,
          query,
          exportQuery,
          data: { totals, series, groups, keyNames: names },
        }),
      );
    },

    usageExport: async (user: FrameUser, url: URL, format: "csv" | "json") => {
      const { values, errors, query } = parseUsageQuery(url.searchParams, deps.now());
      if (!query) {
        return html(
          UsagePage({ user, values, errors, exportQuery: new URLSearchParams(values).toString() }),
          400,
        );
      }
      const db = await deps.db();
      const { totals, series, groups } = await aggregateUsage(db, query, query.step, query.by);
      const name = `usage-${values.since}-${values.until}-${query.step}`;
      const headers = {
        "cache-control": "no-store",
        "x-content-type-options": "nosniff",
        "content-disposition": `attachment; filename="${name}.${format}"`,
      };
      if (format === "json") {
        const iso = (ms: number) => new Date(ms).toISOString();
        const body = {
          filters: {
            since: iso(query.since),
            until: iso(query.until),
            step: query.step,
            by: query.by,
            key: query.key ?? null,
          },
          total: totals,
          series: series.map(({ start, ...rest }) => ({ start: iso(start), ...rest })),
          groups,
        };
        return new Response(JSON.stringify(body, null, 2), {
          headers: { ...headers, "content-type": "application/json; charset=utf-8" },
        });
      }
      const columns = [
        "requests",
        "errors",
        "input_tokens",
        "output_tokens",
        "cost_usd",
        "avg_latency_ms",
        "max_latency_ms",
      ] as const;
      const lines = [["bucket_start", ...columns].join(",")];
      for (const b of series) {
        lines.push([new Date(b.start).toISOString(), ...columns.map((c) => b[c] ?? "")].join(","));
      }
      return new Response(lines.join("\n") + "\n", {
        headers: { ...headers, "content-type": "text/csv; charset=utf-8" },
      });
    },

    requests: async (user: FrameUser, url: URL) => {
      const { values, errors, filters } = parseRequestFilters(url.searchParams);
      const names = await keyNames();
      if (!filters) return html(RequestsPage({ user, values, errors, rows: [], keyNames: names }), 400);
      const rows = await latestRequests(await deps.db(), filters, 50);
      const next = rows.length === 50
        ? new URLSearchParams({ ...values, before: String(rows[rows.length - 1].id) }).toString()
        : undefined;
      return html(RequestsPage({ user, values, errors, rows, keyNames: names, nextQuery: next }));
    },

    providers: async (user: FrameUser) => {
      const now = deps.now();
      const db = await deps.db();
      const [hour, day] = await Promise.all([
        aggregateBy(db, { since: now - 3_600_000, until: now + 1 }, "provider"),
        aggregateBy(db, { since: now - DAY, until: now + 1 }, "provider"),
      ]);
      const rows: ProviderRow[] = deps.providers.map((p) => ({
        name: p.name,
        kind: p.kind,
        host: hostOf(p.baseUrl),
        breaker: deps.breakers.stateOfProvider(p.name),
        hour: hour.find((g) => g.group === p.name),
        day: day.find((g) => g.group === p.name),
      }));
      return html(ProvidersPage({ user, rows }));
    },
  };

  function notFoundPage() {
    return html(
      MessagePage({
        title: "Not found",
        message: "There is no active key with that id.",
        link: { href: `${CONSOLE_PATH}/keys`, label: "Back to keys" },
      }),
      404,
    );
  }
}

function hostOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).host;
  } catch {
    return "?";
  }
}

/** A 303 to a console path. */
export function redirect(path: string, headers: Record<string, string | string[]> = {}): Response {
  const out = new Headers({ location: path, "cache-control": "no-store" });
  for (const [name, value] of Object.entries(headers)) {
    for (const v of Array.isArray(value) ? value : [value]) out.append(name, v);
  }
  return new Response(null, { status: 303, headers: out });
}
