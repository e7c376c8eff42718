/**
 * Bar charts as SVG rendered on the server: no charting library, no CDN, nothing to load, and the numbers
 * are already in the page (each bar's `<title>` is the native tooltip; console.js mirrors it into a caption
 * on hover). The same series is listed in a table under the chart for screen readers and no-mouse users.
 */

/** One bar. */
export interface ChartPoint {
  /** Axis label (shown for a few bars only). */
  label: string;
  value: number;
  /** Full text for the tooltip, e.g. "2026-11-25 14:00 — 120 requests". */
  detail: string;
  /** Drawn in the error colour. */
  error?: boolean;
}

const WIDTH = 600;
const HEIGHT = 180;
const LEFT = 44;
const BOTTOM = 20;

function niceMax(max: number): number {
  if (max <= 0) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 2.5, 5, 10]) if (max <= step * magnitude) return step * magnitude;
  return 10 * magnitude;
}

function short(value: number): string {
  if (value >= 1e6) return `${Math.round(value / 1e5) / 10}M`;
  if (value >= 1e3) return `${Math.round(value / 100) / 10}k`;
  return String(Math.round(value * 100) / 100);
}

/** A titled bar chart with its data table. */
export function BarChart(props: { title: string; points: ChartPoint[]; unit: string }) {
  const max = niceMax(Math.max(0, ...props.points.map((p) => p.value)));
  const plotW = WIDTH - LEFT - 4;
  const plotH = HEIGHT - BOTTOM - 8;
  const slot = plotW / Math.max(1, props.points.length);
  const labelEvery = Math.max(1, Math.ceil(props.points.length / 6));
  const total = props.points.reduce((n, p) => n + p.value, 0);
  return (
    <figure data-chart="">
      <figcaption>{props.title}</figcaption>
      <svg
        class="chart"
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-label={`${props.title}: ${props.points.length} bars, peak ${short(max)} ${props.unit}`}
      >
        {[0, 0.5, 1].map((f) => {
          const y = 8 + plotH * (1 - f);
          return (
            <g>
              <line x1={LEFT} x2={WIDTH - 4} y1={y} y2={y} />
              <text x={LEFT - 4} y={y + 4} text-anchor="end">{short(max * f)}</text>
            </g>
          );
        })}
        {props.points.map((p, i) => {
          const h = max ? (p.value / max) * plotH : 0;
          const x = LEFT + i * slot + slot * 0.1;
          return (
            <g>
              <rect
                class={p.error ? "bar err" : "bar"}
                x={x.toFixed(1)}
                y={(8 + plotH - h).toFixed(1)}
                width={Math.max(1, slot * 0.8).toFixed(1)}
                height={Math.max(p.value > 0 ? 1 : 0, h).toFixed(1)}
                data-tip={p.detail}
              >
                <title>{p.detail}</title>
              </rect>
              {i % labelEvery === 0 && <text x={x.toFixed(1)} y={HEIGHT - 4}>{p.label}</text>}
            </g>
          );
        })}
      </svg>
      <p class="tip" aria-live="polite">{`Total ${short(total)} ${props.unit}`}</p>
      <details>
        <summary>Data</summary>
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Bucket</th>
                <th scope="col" class="num">{props.unit}</th>
              </tr>
            </thead>
            <tbody>
              {props.points.filter((p) => p.value).map((p) => (
                <tr>
                  <td>{p.detail.split(" — ")[0]}</td>
                  <td class="num">{String(Math.round(p.value * 1e4) / 1e4)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
