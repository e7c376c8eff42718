/** The Keys page: every key with its limits and current usage, the create form, edit and revoke pages. */
import type { ApiKeyInfo } from "../keys/store.ts";
import type { UsageSnapshot } from "../limits/counters.ts";
import { Csrf, Field, Select } from "./fields.tsx";
import { Frame, type FrameUser } from "./layout.tsx";
import type { KeyFormValues } from "./key_form.ts";
import { CONSOLE_PATH } from "./settings.ts";

/** A listed key with what it used. */
export interface KeyRow {
  key: ApiKeyInfo;
  /** The limit counters' view (windows of the last minute, spend of the budget period). */
  live?: UsageSnapshot;
  /** Ledger requests and errors in the last 24 hours. */
  day?: { requests: number; errors: number; cost_usd: number };
}

const PERIODS: Array<[string, string]> = [["", "none"], ["day", "day (UTC)"], ["month", "month (UTC)"]];

/** The limit inputs shared by the create and edit forms. */
function LimitFields(props: { values: KeyFormValues; errors: Record<string, string> }) {
  const { values, errors } = props;
  return (
    <>
      <Field
        name="rpm"
        label="Requests per minute"
        value={values.rpm}
        error={errors.rpm}
        inputmode="numeric"
      />
      <Field name="tpm" label="Tokens per minute" value={values.tpm} error={errors.tpm} inputmode="numeric" />
      <Field
        name="max-concurrency"
        label="Max concurrent requests"
        value={values["max-concurrency"]}
        error={errors["max-concurrency"]}
        inputmode="numeric"
      />
      <Field
        name="budget-usd"
        label="Budget (USD)"
        value={values["budget-usd"]}
        error={errors["budget-usd"]}
        inputmode="decimal"
      />
      <Select
        name="budget-period"
        label="Budget period"
        options={PERIODS}
        value={values["budget-period"]}
        error={errors["budget-period"]}
      />
      <Field
        name="models"
        label="Models"
        hint="Comma-separated; empty: all models"
        value={values.models}
        error={errors.models}
      />
      <Field
        name="expires"
        label="Expires"
        hint="ISO date such as 2026-12-31; empty: never"
        value={values.expires}
        error={errors.expires}
      />
    </>
  );
}

function limitsText(key: ApiKeyInfo): string {
  const parts: string[] = [];
  if (key.rpm !== null) parts.push(`${key.rpm} rpm`);
  if (key.tpm !== null) parts.push(`${key.tpm} tpm`);
  if (key.maxConcurrency !== null) parts.push(`${key.maxConcurrency} concurrent`);
  if (key.budgetUsd !== null) parts.push(`$${key.budgetUsd}/${key.budgetPeriod}`);
  if (key.models) parts.push(`models: ${key.models.join(", ")}`);
  return parts.join(" · ") || "none";
}

function statusOf(key: ApiKeyInfo, now: number): string {
  if (key.revokedAt) return "revoked";
  if (key.expiresAt && Date.parse(key.expiresAt) <= now) return "expired";
  return key.admin ? "active (admin)" : "active";
}

function liveText(row: KeyRow): string {
  if (!row.live) return "—";
  const { key, live } = row;
  const parts = [`${live.requests.used}${key.rpm !== null ? `/${key.rpm}` : ""} req/min`];
  if (key.tpm !== null) parts.push(`${live.tokens.used}/${key.tpm} tok/min`);
  if (key.maxConcurrency !== null) parts.push(`${live.inFlight}/${key.maxConcurrency} in flight`);
  if (key.budgetUsd !== null) parts.push(`$${(live.spentMicros / 1e6).toFixed(4)} spent`);
  return parts.join(" · ");
}

/** The Keys page. */
export function KeysPage(props: {
  user: FrameUser;
  rows: KeyRow[];
  values?: KeyFormValues;
  errors?: Record<string, string>;
  created?: { id: string; key: string; name: string };
  notice?: string;
  now: number;
}) {
  const errors = props.errors ?? {};
  return (
    <Frame title="Keys" current={`${CONSOLE_PATH}/keys`} user={props.user}>
      {props.notice && <p class="notice" role="status">{props.notice}</p>}
      {props.created && (
        <section class="notice" aria-labelledby="new-key">
          <h2 id="new-key">New key “{props.created.name}” ({props.created.id})</h2>
          <p>Copy it now: it is shown only once and the gateway keeps only its hash.</p>
          <div class="secret">
            <label for="created-key" class="hint">API key</label>
            <input id="created-key" readonly value={props.created.key} />
            <button type="button" data-copy="created-key" hidden>Copy</button>
          </div>
        </section>
      )}
      <h2 id="list">Keys</h2>
      <div class="scroll">
        <table aria-labelledby="list">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Id / prefix</th>
              <th scope="col">Status</th>
              <th scope="col">Limits</th>
              <th scope="col">Now</th>
              <th scope="col" class="num">Requests 24 h</th>
              <th scope="col" class="num">Errors 24 h</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {props.rows.map((row) => {
              const status = statusOf(row.key, props.now);
              return (
                <tr>
                  <td>{row.key.name}</td>
                  <td class="mono">
                    {row.key.id}
                    <br />
                    {row.key.prefix}…
                  </td>
                  <td>{status}</td>
                  <td>{limitsText(row.key)}</td>
                  <td>{liveText(row)}</td>
                  <td class="num">{String(row.day?.requests ?? 0)}</td>
                  <td class="num">{String(row.day?.errors ?? 0)}</td>
                  <td>
                    {!row.key.revokedAt && (
                      <span class="actions">
                        <a href={`${CONSOLE_PATH}/keys/${row.key.id}`}>
                          Edit limits<span class="skip">of {row.key.name}</span>
                        </a>
                        <a href={`${CONSOLE_PATH}/keys/${row.key.id}/revoke`}>
                          Revoke<span class="skip">{row.key.name}</span>
                        </a>
                      </span>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <h2 id="create">Create a key</h2>
      <div class="card">
        <form method="post" action={`${CONSOLE_PATH}/keys`} class="grid" aria-labelledby="create" novalidate>
          <Csrf token={props.user.csrf} />
          <Field name="name" label="Name" value={props.values?.name} error={errors.name} required />
          <LimitFields values={props.values ?? {}} errors={errors} />
          <div class="actions">
            <button type="submit">Create key</button>
          </div>
        </form>
      </div>
    </Frame>
  );
}

/** The edit page of one key. */
export function EditKeyPage(props: {
  user: FrameUser;
  key: ApiKeyInfo;
  values: KeyFormValues;
  errors?: Record<string, string>;
}) {
  return (
    <Frame title={`Limits of ${props.key.name}`} current={`${CONSOLE_PATH}/keys`} user={props.user}>
      <div class="card">
        <p class="mono">{props.key.id}</p>
        <form method="post" action={`${CONSOLE_PATH}/keys/${props.key.id}`} class="grid" novalidate>
          <Csrf token={props.user.csrf} />
          <LimitFields values={props.values} errors={props.errors ?? {}} />
          <div class="actions">
            <button type="submit">Save limits</button>
            <a class="button secondary" href={`${CONSOLE_PATH}/keys`}>Cancel</a>
          </div>
        </form>
      </div>
    </Frame>
  );
}

/** The revoke confirmation of one key. */
export function RevokeKeyPage(props: { user: FrameUser; key: ApiKeyInfo }) {
  return (
    <Frame title={`Revoke ${props.key.name}?`} current={`${CONSOLE_PATH}/keys`} user={props.user}>
      <div class="card">
        <p>
          Key <span class="mono">{props.key.id}</span>{" "}
          ({props.key.prefix}…) stops working within seconds on every gateway instance. This cannot be undone.
        </p>
        <form method="post" action={`${CONSOLE_PATH}/keys/${props.key.id}/revoke`} class="actions">
          <Csrf token={props.user.csrf} />
          <button type="submit" class="danger">Revoke key</button>
          <a class="button secondary" href={`${CONSOLE_PATH}/keys`}>Cancel</a>
        </form>
      </div>
    </Frame>
  );
}
