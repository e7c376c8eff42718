/** The Usage page: totals, charts over time, a breakdown, the range form and the export links. */
import type { Aggregate } from "../usage/series.ts";
import { BarChart, type ChartPoint } from "./chart.tsx";
import { Field, Select } from "./fields.tsx";
import { Frame, type FrameUser } from "./layout.tsx";
import type { UsageQuery, UsageQueryValues } from "./usage_query.ts";
import { CONSOLE_PATH } from "./settings.ts";

/** What the page shows. */
export interface UsageData {
  totals: Aggregate;
  series: Array<{ start: number } & Aggregate>;
  groups: Array<{ group: string } & Aggregate>;
  /** Key id → name, for the breakdown by key. */
  keyNames: Map<string, string>;
}

const money = (usd: number) => `$${usd.toFixed(usd < 1 ? 4 : 2)}`;
const rate = (a: Aggregate) => a.requests ? `${((a.errors / a.requests) * 100).toFixed(1)} %` : "—";

function bucketLabel(start: number, step: UsageQuery["step"]): { short: string; full: string } {
  const iso = new Date(start).toISOString();
  return step === "day"
    ? { short: iso.slice(5, 10), full: iso.slice(0, 10) }
    : { short: iso.slice(11, 13) + "h", full: `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` };
}

function points(
  data: UsageData,
  step: UsageQuery["step"],
  value: (a: Aggregate) => number,
  unit: string,
  error = false,
): ChartPoint[] {
  return data.series.map((b) => {
    const label = bucketLabel(b.start, step);
    const v = value(b);
    return {
      label: label.short,
      value: v,
      detail: `${label.full} — ${Math.round(v * 1e4) / 1e4} ${unit}`,
      error,
    };
  });
}

/** The Usage page; `data` absent when the query has errors. */
export function UsagePage(props: {
  user: FrameUser;
  values: UsageQueryValues;
  errors: Record<string, string>;
  query?: UsageQuery;
  data?: UsageData;
  exportQuery: string;
}) {
  const { values, errors, data, query } = props;
  return (
    <Frame title="Usage" current={`${CONSOLE_PATH}/usage`} user={props.user}>
      <div class="card">
        <form method="get" action={`${CONSOLE_PATH}/usage`} class="grid" aria-label="Range" novalidate>
          <Field name="since" label="From (UTC date)" type="date" value={values.since} error={errors.since} />
          <Field
            name="until"
            label="To (UTC date, inclusive)"
            type="date"
            value={values.until}
            error={errors.until}
          />
          <Select
            name="step"
            label="Per"
            options={[["day", "day"], ["hour", "hour"]]}
            value={values.step}
            error={errors.step}
          />
          <Select
            name="by"
            label="Breakdown by"
            options={[["key", "key"], ["model", "model"], ["provider", "provider"]]}
            value={values.by}
            error={errors.by}
          />
          <Field name="key" label="Key id" hint="Empty: every key" value={values.key} error={errors.key} />
          <div class="actions">
            <button type="submit">Show</button>
          </div>
        </form>
      </div>
      {data && query && (
        <>
          <p class="actions">
            <a href={`${CONSOLE_PATH}/usage/export.csv?${props.exportQuery}`}>Export CSV</a>
            <a href={`${CONSOLE_PATH}/usage/export.json?${props.exportQuery}`}>Export JSON</a>
          </p>
          <dl class="stats">
            <div>
              <dt>Requests</dt>
              <dd>{String(data.totals.requests)}</dd>
            </div>
            <div>
              <dt>Input tokens</dt>
              <dd>{String(data.totals.input_tokens)}</dd>
            </div>
            <div>
              <dt>Output tokens</dt>
              <dd>{String(data.totals.output_tokens)}</dd>
            </div>
            <div>
              <dt>Cost</dt>
              <dd>{money(data.totals.cost_usd)}</dd>
            </div>
            <div>
              <dt>Error rate</dt>
              <dd>{rate(data.totals)}</dd>
            </div>
            <div>
              <dt>Mean latency</dt>
              <dd>{data.totals.avg_latency_ms === null ? "—" : `${data.totals.avg_latency_ms} ms`}</dd>
            </div>
          </dl>
          <div class="charts">
            <BarChart
              title="Requests"
              unit="requests"
              points={points(data, query.step, (a) => a.requests, "requests")}
            />
            <BarChart
              title="Errors"
              unit="errors"
              points={points(data, query.step, (a) => a.errors, "errors", true)}
            />
            <BarChart
              title="Tokens (input + output)"
              unit="tokens"
              points={points(data, query.step, (a) => a.input_tokens + a.output_tokens, "tokens")}
            />
            <BarChart
              title="Cost (USD)"
              unit="USD"
              points={points(data, query.step, (a) => a.cost_usd, "USD")}
            />
            <BarChart
              title="Error rate (%)"
              unit="%"
              points={points(
                data,
                query.step,
                (a) => a.requests ? (a.errors / a.requests) * 100 : 0,
                "%",
                true,
              )}
            />
            <BarChart
              title="Mean latency (ms)"
              unit="ms"
              points={points(data, query.step, (a) => a.avg_latency_ms ?? 0, "ms")}
            />
          </div>
          <h2 id="breakdown">By {query.by}</h2>
          <div class="scroll">
            <table aria-labelledby="breakdown">
              <thead>
                <tr>
                  <th scope="col">{query.by}</th>
                  <th scope="col" class="num">Requests</th>
                  <th scope="col" class="num">Input tokens</th>
                  <th scope="col" class="num">Output tokens</th>
                  <th scope="col" class="num">Cost</th>
                  <th scope="col" class="num">Error rate</th>
                  <th scope="col" class="num">Mean latency</th>
                  <th scope="col" class="num">Max latency</th>
                </tr>
              </thead>
              <tbody>
                {data.groups.map((g) => (
                  <tr>
                    <td>
                      {query.by === "key" ? `${data.keyNames.get(g.group) ?? "?"} (${g.group})` : g.group}
                    </td>
                    <td class="num">{String(g.requests)}</td>
                    <td class="num">{String(g.input_tokens)}</td>
                    <td class="num">{String(g.output_tokens)}</td>
                    <td class="num">{money(g.cost_usd)}</td>
                    <td class="num">{rate(g)}</td>
                    <td class="num">{g.avg_latency_ms === null ? "—" : `${g.avg_latency_ms} ms`}</td>
                    <td class="num">
                      {g.max_latency_ms === null ? "—" : `${Math.round(g.max_latency_ms)} ms`}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </Frame>
  );
}
