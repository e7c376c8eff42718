/**
 * The Providers page: configured providers, their circuit-breaker state (the worst of their deployments,
 * naming those not closed) and recent error rates.
 */
import type { BreakerState } from "../upstream/circuit_breaker.ts";
import type { Aggregate } from "../usage/series.ts";
import { Frame, type FrameUser } from "./layout.tsx";
import { CONSOLE_PATH } from "./settings.ts";

/** One provider as shown. */
export interface ProviderRow {
  name: string;
  kind: string;
  /** Host of the base URL (never credentials or paths). */
  host: string;
  /** The worst circuit among the provider's deployments, and those not closed. */
  breaker: BreakerState & { deployments: string[] };
  hour?: Aggregate;
  day?: Aggregate;
}

const rate = (a?: Aggregate) =>
  a && a.requests ? `${((a.errors / a.requests) * 100).toFixed(1)} % of ${a.requests}` : "no requests";

function breakerText(state: ProviderRow["breaker"]): string {
  // Which deployments (`provider/model`, the credential's name left out) are not closed.
  const which = state.deployments.length
    ? `: ${state.deployments.map((d) => d.replace(/#.*$/, "")).join(", ")}`
    : "";
  if (state.state === "open") return `open (probe in ${Math.ceil(state.retryInMs / 1000)} s)${which}`;
  if (state.state === "half-open") return `half-open (probing)${which}`;
  return state.failures ? `closed (${state.failures} recent failures)` : "closed";
}

/** The Providers page. */
export function ProvidersPage(props: { user: FrameUser; rows: ProviderRow[] }) {
  return (
    <Frame title="Providers" current={`${CONSOLE_PATH}/providers`} user={props.user}>
      <div class="scroll">
        <table aria-label="Providers">
          <thead>
            <tr>
              <th scope="col">Provider</th>
              <th scope="col">Kind</th>
              <th scope="col">Upstream host</th>
              <th scope="col">Circuit</th>
              <th scope="col" class="num">Errors, last hour</th>
              <th scope="col" class="num">Errors, last 24 h</th>
            </tr>
          </thead>
          <tbody>
            {props.rows.map((p) => (
              <tr>
                <td>{p.name}</td>
                <td>{p.kind}</td>
                <td class="mono">{p.host}</td>
                <td class={p.breaker.state === "closed" ? "status-ok" : "status-err"}>
                  {breakerText(p.breaker)}
                </td>
                <td class="num">{rate(p.hour)}</td>
                <td class="num">{rate(p.day)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {!props.rows.length && <p>No provider is configured (set a provider's API key or GATEWAY_CONFIG).</p>}
    </Frame>
  );
}
