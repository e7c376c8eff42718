/**
 * Small readers of frontmatter values the planner shares: YAML conversion, checkout inputs, experiments,
 * memory fragments, OTLP env, stop-time, cache steps, conditions and contents access.
 */
import type { StepPlan } from "./types.ts";
import { BUILTIN_PINS, type PinResolver } from "./pins.ts";
import { Comment, lit, plain, sq, type YValue } from "../yaml/writer.ts";
import { afterSectionRoundTrip } from "./user_steps.ts";
import { readLockMetadata } from "../source/lock_metadata.ts";
import type { Frontmatter } from "../source/schema.ts";
import { isObject, type Mapping, mappingsOf } from "../source/values.ts";

/** The version a lock or built-in pin records for `repo@sha`, if any. */
export function versionOfSha(pins: PinResolver, repo: string, sha: string): string | undefined {
  const hit = Object.values(pins.lock.entries).find((e) => e.repo === repo && e.sha === sha);
  if (hit) return hit.version;
  const b = Object.entries(BUILTIN_PINS).find(([k, v]) => v === sha && k.startsWith(`${repo}@`));
  return b ? b[0].slice(repo.length + 1) : undefined;
}

/** The first `# Heading` line of a Markdown body (gh-aw does not skip code fences). */
export function firstHeading(body: string): string | undefined {
  for (const line of body.split("\n")) {
    const m = /^#\s+(.+?)\s*#*\s*$/.exec(line);
    if (m) return m[1];
  }
  return undefined;
}

const CHECKOUT_INPUTS = [
  "repository",
  "ref",
  "path",
  "fetch-depth",
  "sparse-checkout",
  "submodules",
  "lfs",
  "token",
];

/** Maps a `checkout:` entry to `actions/checkout` inputs (lists become newline-separated text). */
export function checkoutWith(c: Record<string, unknown>): Record<string, YValue> {
  const out: Record<string, YValue> = {};
  for (const [k0, v] of Object.entries(c)) {
    const k = k0 === "github-token" ? "token" : k0;
    if (!CHECKOUT_INPUTS.includes(k)) continue;
    out[k] = Array.isArray(v) ? lit(v.map(String).join("\n") + "\n") : toY(v);
  }
  return out;
}

const EXPERIMENT_KEYS = [
  "variants",
  "description",
  "hypothesis",
  "metric",
  "secondary_metrics",
  "guardrail_metrics",
  "min_samples",
  "weight",
  "issue",
  "start_date",
  "end_date",
  "analysis_type",
  "tags",
  "notify",
];

/** `experiments:` → names and the Go-style (HTML-escaped, struct-ordered) JSON the picker reads. */
export function experimentsSpec(
  raw: Frontmatter["experiments"],
): { names: string[]; spec: string } | undefined {
  if (raw === undefined) return undefined;
  const out: Record<string, Record<string, unknown>> = {};
  for (const [name, cfg] of Object.entries(raw)) {
    // `storage:` (a backend name) is listed as an experiment without settings, as before.
    const c: Record<string, unknown> = typeof cfg === "string" ? {} : cfg;
    const o: Record<string, unknown> = {};
    for (const k of EXPERIMENT_KEYS) if (c[k] !== undefined) o[k] = c[k];
    for (const k of Object.keys(c)) if (!EXPERIMENT_KEYS.includes(k)) o[k] = c[k];
    out[name] = o;
  }
  const spec = JSON.stringify(out).replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026");
  return { names: Object.keys(out), spec };
}

/** The activation/pre-activation condition of a decentralized label command (routed via aw_context). */
export function labelRouteCondition(names: string[], events: string[]): string {
  const aw = "fromJSON(github.event.inputs.aw_context || '{}')";
  const ev = (e: string) => `${aw}.event_type == '${e}'`;
  const lb = (n: string) => `${aw}.trigger_label == '${n}'`;
  if (events.length === 1 && names.length === 1) {
    return `${ev(events[0])} && ${lb(names[0])} || !(${ev(events[0])})`;
  }
  const e = events.length === 1 ? ev(events[0]) : `(${events.map(ev).join(" || ")})`;
  const n = names.length === 1 ? lb(names[0]) : `(${names.map(lb).join(" || ")})`;
  return `${e} && ${n} || ${events.map((x) => `(!(${ev(x)}))`).join(" && ")}`;
}

/** The memory prompt fragment (`_multi` for a list of memories). */
export function memoryFragment(v: unknown, base: string): string[] {
  if (v === undefined || v === false) return [];
  return [isMultiMemory(v) ? `${base}_multi.md` : `${base}.md`];
}

/** A memory list other than a lone `default` entry gets gh-aw's multi-memory prompt. */
export function isMultiMemory(v: unknown): v is Record<string, unknown>[] {
  if (!Array.isArray(v)) return false;
  return v.length > 1 ||
    (v.length === 1 && typeof v[0]?.id === "string" && v[0].id !== "default");
}

/** Workflow-level OpenTelemetry env for `observability.otlp`. */
export function otlpEnv(
  endpoints: { url: string; headers: Record<string, string> }[],
  id: string,
  name: string,
  engineId: string,
  /** The target's `otelAttributeEncoding`. */
  encoding: "raw" | "percent" = "raw",
): Record<string, YValue> {
  if (endpoints.length === 0) return {};
  const attr = encoding === "percent" ? percentEncode : (s: string) => s;
  const hdr = (e: { url: string; headers: Record<string, string> }) =>
    Object.entries(e.headers).map(([k, v]) =>
      `${/sentry/i.test(e.url) && k === "Authorization" ? "x-sentry-auth" : k}=${v}`
    )
      .join(",");
  const out: Record<string, YValue> = {
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoints[0].url,
    OTEL_SERVICE_NAME: `gh-aw.${id}`,
    OTEL_RESOURCE_ATTRIBUTES: sq(
      `gh-aw.workflow.name=${
        attr(name)
      },gh-aw.repository=\${{ github.repository }},gh-aw.run.id=\${{ github.run_id }},github.run_id=\${{ github.run_id }},gh-aw.engine.id=${
        attr(engineId)
      }`,
    ),
  };
  if (hdr(endpoints[0])) out.OTEL_EXPORTER_OTLP_HEADERS = hdr(endpoints[0]);
  const all = endpoints.map(hdr).filter(Boolean).join(",");
  // The combined header list only matters when there is more than one endpoint to export to.
  if (all && endpoints.length > 1) out.GH_AW_OTLP_ALL_HEADERS = all;
  out.GH_AW_OTLP_ENDPOINTS = sq(JSON.stringify(endpoints.map((e) => ({ url: e.url, headers: hdr(e) }))));
  return out;
}

/**
 * Percent-encodes a resource attribute value (W3C Baggage style, as the OTel SDKs decode them): every byte
 * of its UTF-8 form outside the unreserved set `A-Z a-z 0-9 - . _ ~` becomes `%XX`.
 */
export function percentEncode(s: string): string {
  let out = "";
  for (const b of new TextEncoder().encode(s)) {
    const c = String.fromCharCode(b);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

export function stripExpr(s: string): string {
  const m = /^\$\{\{\s*([\s\S]*?)\s*\}\}$/.exec(s.trim());
  return m ? m[1] : s.trim();
}

export function sortRecord<T>(r: Record<string, T>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const k of Object.keys(r).sort()) out[k] = r[k];
  return out;
}

/** Plain data → writer values (strings auto-quoted; multi-line strings as literal blocks). */
export function toY(v: unknown): YValue {
  if (v === undefined) return null;
  if (typeof v === "string") return v.includes("\n") ? lit(v) : v;
  if (Array.isArray(v)) return v.map(toY);
  if (v && typeof v === "object") {
    const out: Record<string, YValue> = {};
    for (const [k, x] of Object.entries(v)) out[k] = toY(x);
    return out;
  }
  return v as YValue;
}

/** {@link toY} with every mapping's keys sorted, as Go marshals a map. */
export function toSortedY(v: unknown): YValue {
  if (Array.isArray(v)) return v.map(toSortedY);
  if (isObject(v)) {
    const out: Record<string, YValue> = {};
    for (const k of Object.keys(v).sort()) out[k] = toSortedY(v[k]);
    return out;
  }
  return toY(v);
}

/** Resolves `stop-after` (absolute or `+Nd`-style relative), preserving the value of an existing lock. */
export function resolveStopTime(
  raw: string | undefined,
  now: Date,
  existingLock: string | undefined,
): string | undefined {
  if (raw === undefined || raw === null) return undefined;
  const prior = existingLock ? readLockMetadata(existingLock)?.stop_time : undefined;
  if (typeof prior === "string") return prior;
  const s = String(raw).trim();
  const fmt = (d: Date) => d.toISOString().slice(0, 19).replace("T", " ");
  const rel = /^\+((?:\d+(?:mo|w|d|h))+)$/.exec(s);
  if (rel) {
    const d = new Date(now.getTime());
    for (const m of rel[1].matchAll(/(\d+)(mo|w|d|h)/g)) {
      const n = +m[1];
      if (m[2] === "mo") d.setUTCMonth(d.getUTCMonth() + n);
      else if (m[2] === "w") d.setUTCDate(d.getUTCDate() + 7 * n);
      else if (m[2] === "d") d.setUTCDate(d.getUTCDate() + n);
      else d.setUTCHours(d.getUTCHours() + n);
    }
    return fmt(d);
  }
  const parsed = new Date(
    s.includes("T") || /\d{4}-\d{2}-\d{2} \d/.test(s)
      ? s.replace(" ", "T") + (s.endsWith("Z") ? "" : "Z")
      : s + " UTC",
  );
  return Number.isNaN(parsed.getTime()) ? undefined : fmt(parsed);
}

/**
 * The frontmatter `cache:` entries as `actions/cache` steps, after gh-aw's comment line: each named by its own
 * `name` (else `Cache`, numbered when there are several), with `key`, `path`, `restore-keys`,
 * `upload-chunk-size`, `fail-on-cache-miss` and `lookup-only` in that order, values written as they are
 * (lists as literal blocks). gh-aw reads the section after its round trip, so the last entry's last value
 * loses its final line break (user_steps.ts).
 */
export async function cacheSteps(
  entries: Frontmatter["cache"],
  pinText: (r: string, v: string) => Promise<string>,
): Promise<StepPlan[]> {
  if (entries === undefined) return [];
  const sorted = (o: Mapping) => Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]]));
  const list = mappingsOf(afterSectionRoundTrip(entries.map(sorted)));
  const uses = plain(await pinText("actions/cache", "v5.0.5"));
  const out: StepPlan[] = [
    new Comment("Cache configuration from frontmatter processed below") as unknown as StepPlan,
  ];
  list.forEach((c, i) => {
    const name = typeof c.name === "string" && c.name !== ""
      ? c.name
      : list.length > 1
      ? `Cache ${i + 1}`
      : "Cache";
    const withs: Record<string, YValue> = {};
    for (
      const key of ["key", "path", "restore-keys", "upload-chunk-size", "fail-on-cache-miss", "lookup-only"]
    ) {
      const v = c[key];
      if (v === undefined || v === null) continue;
      const multi = key === "path" || key === "restore-keys";
      withs[key] = multi && Array.isArray(v) ? lit(v.map(String).join("\n") + "\n") : cacheValue(v);
    }
    out.push({ name, uses, with: withs });
  });
  return out;
}

/** A value as gh-aw's `%v` writes it: bare; a multi-line string as a literal block. */
function cacheValue(v: unknown): YValue {
  const text = String(v);
  if (text.includes("\n")) return lit(text);
  return typeof v === "string" ? plain(text) : v as YValue;
}

/** gh-aw adds checkout-dependent prompt sections only when the workflow can read repository contents. */
export function hasContentsRead(permissions: unknown): boolean {
  if (permissions === undefined || permissions === null) return true;
  if (typeof permissions === "string") return permissions === "read-all" || permissions === "write-all";
  if (!isObject(permissions)) return false;
  const p = permissions;
  return p.contents === "read" || p.contents === "write" || p.all === "read" || p.all === "write";
}
