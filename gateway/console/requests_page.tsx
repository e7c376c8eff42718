/** The Requests page: the latest ledger rows with key, model and status filters (never any prompt text). */
import type { ListedRow, RequestFilters } from "../usage/series.ts";
import { Field } from "./fields.tsx";
import { Frame, type FrameUser } from "./layout.tsx";
import { CONSOLE_PATH } from "./settings.ts";

/** Raw filter values, echoed into the form. */
export type RequestFilterValues = Record<"key" | "model" | "status", string>;

/** Parses the filters; a bad status is reported on its field. */
export function parseRequestFilters(
  params: URLSearchParams,
): { values: RequestFilterValues; filters?: RequestFilters; errors: Record<string, string> } {
  const values = {
    key: params.get("key")?.trim() ?? "",
    model: params.get("model")?.trim() ?? "",
    status: params.get("status")?.trim() ?? "",
  };
  const errors: Record<string, string> = {};
  const filters: RequestFilters = {};
  if (values.key) filters.key = values.key;
  if (values.model) filters.model = values.model;
  if (values.status === "ok" || values.status === "error") filters.status = values.status;
  else if (/^[1-5]\d\d$/.test(values.status)) filters.status = Number(values.status);
  else if (values.status) {
    errors.status = `Expected ok, error or a status code such as 429, got “${values.status}”.`;
  }
  const before = params.get("before");
  if (before !== null) {
    if (/^\d{1,15}$/.test(before)) filters.before = Number(before);
    else errors.before = "Expected a row id.";
  }
  return Object.keys(errors).length ? { values, errors } : { values, filters, errors };
}

/** The Requests page. */
export function RequestsPage(props: {
  user: FrameUser;
  values: RequestFilterValues;
  errors: Record<string, string>;
  rows: ListedRow[];
  keyNames: Map<string, string>;
  nextQuery?: string;
}) {
  const { values, errors } = props;
  return (
    <Frame title="Requests" current={`${CONSOLE_PATH}/requests`} user={props.user}>
      <div class="card">
        <form method="get" action={`${CONSOLE_PATH}/requests`} class="grid" aria-label="Filters" novalidate>
          <Field name="key" label="Key id" value={values.key} error={errors.key} />
          <Field name="model" label="Model (as asked for)" value={values.model} error={errors.model} />
          <Field
            name="status"
            label="Status"
            hint="ok, error, or a code such as 429"
            value={values.status}
            error={errors.status ?? errors.before}
          />
          <div class="actions">
            <button type="submit">Filter</button>
            <a class="button secondary" href={`${CONSOLE_PATH}/requests`}>Clear</a>
          </div>
        </form>
      </div>
      <div class="scroll">
        <table aria-label="Latest requests">
          <thead>
            <tr>
              <th scope="col">Time (UTC)</th>
              <th scope="col">Key</th>
              <th scope="col">Model</th>
              <th scope="col">Served by</th>
              <th scope="col" class="num">Status</th>
              <th scope="col" class="num">Attempts</th>
              <th scope="col" class="num">Tokens in/out</th>
              <th scope="col" class="num">Cost</th>
              <th scope="col" class="num">Latency</th>
              <th scope="col">Trace id</th>
              <th scope="col">Request id</th>
            </tr>
          </thead>
          <tbody>
            {props.rows.map((r) => (
              <tr>
                <td>{new Date(Number(r.at)).toISOString().replace("T", " ").slice(0, 19)}</td>
                <td>
                  {props.keyNames.get(r.key_id) ?? (r.key_id.includes(":") ? "" : "?")}{" "}
                  <span class="mono">{r.key_id}</span>
                </td>
                <td>{r.model}{r.stream ? " (stream)" : ""}</td>
                <td>{r.provider ? `${r.provider}/${r.served_model ?? "?"}` : "—"}</td>
                <td class={`num ${Number(r.status) >= 400 ? "status-err" : "status-ok"}`}>
                  {String(r.status)}
                  {r.error_type ? ` ${r.error_type}` : ""}
                </td>
                <td class="num">{String(r.attempts)}</td>
                <td class="num">{`${r.input_tokens}/${r.output_tokens}`}</td>
                <td class="num">{`$${Number(r.cost_usd).toFixed(6)}`}</td>
                <td class="num">{`${Math.round(Number(r.latency_ms))} ms`}</td>
                <td class="mono">{r.trace_id}</td>
                <td class="mono">{r.request_id}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {!props.rows.length && <p>No requests match.</p>}
      {props.nextQuery && (
        <p>
          <a href={`${CONSOLE_PATH}/requests?${props.nextQuery}`}>Older requests</a>
        </p>
      )}
    </Frame>
  );
}
