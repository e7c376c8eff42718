/**
 * Sends the queued logout tokens (svc_backchannel_outbox, written by fan_out.ts) in the background: each
 * notification is claimed with a conditional update (several instances may share the database), signed as a
 * fresh logout token, POSTed as `application/x-www-form-urlencoded` `logout_token=…` with a bounded timeout,
 * and retried with exponential backoff until `retryForMs` after it was queued. A receiver that hangs or
 * fails costs a background attempt, never the sign-out the user sees. Every outcome is logged (client,
 * reason, status, attempt; never the token) and handed to `onDelivery` (the audit log's hook).
 */
import type { Client } from "@libsql/client";
import type { Logger } from "@switchyard/lib/log.ts";
import type { JwtSigner } from "../signing/id_token_signer.ts";
import { LOGOUT_TOKEN_TYPE, logoutTokenClaims } from "./logout_token.ts";

/** One attempt's outcome, for the audit hook. */
export interface DeliveryEvent {
  /** Outbox row id. */
  id: string;
  /** The relying party. */
  clientId: string;
  /** The user (`sub`). */
  userId: string;
  /** The session (`sid`), when known. */
  sessionId: string | null;
  /** Why the logout went out (fan_out.ts's reasons). */
  reason: string;
  /** `delivered`, `retrying` (will try again) or `failed` (given up). */
  outcome: "delivered" | "retrying" | "failed";
  /** 1 for the first attempt. */
  attempt: number;
  /** The receiver's HTTP status, when it answered. */
  status?: number;
  /** Why an attempt failed (timeout, network error, status), without the token. */
  error?: string;
}

/** Tunables and world access of the delivery; defaults suit the service. */
export interface DeliveryOptions {
  /** HTTP client (tests pass their own). */
  fetch?: typeof fetch;
  /** Clock in ms. */
  now?: () => number;
  /** One attempt's timeout (default 5 s). */
  timeoutMs?: number;
  /** First retry delay; doubles per attempt up to `maxBackoffMs` (default 1 s). */
  backoffMs?: number;
  /** Longest delay between attempts (default 60 s). */
  maxBackoffMs?: number;
  /** Stop retrying this long after the logout was queued (default 10 min). */
  retryForMs?: number;
  /** With a value, also look for rows other processes queued (a CLI command) this often, in ms. */
  pollMs?: number;
  /** Called after every attempt (the audit log hooks in here). */
  onDelivery?: (event: DeliveryEvent) => void | Promise<void>;
}

/** What the delivery needs from the service. */
export interface DeliveryDeps extends DeliveryOptions {
  client: Client;
  issuer: string;
  sign: JwtSigner;
  logger: Logger;
}

interface OutboxRow {
  id: string;
  clientId: string;
  uri: string;
  userId: string;
  sessionId: string | null;
  reason: string;
  createdAt: number;
  nextAttemptAt: number;
  attempts: number;
}

/** Statuses worth retrying among the 4xx (everything else 4xx means the RP refused the token). */
const RETRYABLE_4XX = new Set([408, 425, 429]);
/** How many due rows one pass claims. */
const BATCH = 50;

/** The background sender; `kick()` after queueing, `stop()` on shutdown. */
export class BackchannelDelivery {
  readonly #deps: DeliveryDeps;
  readonly #fetch: typeof fetch;
  readonly #now: () => number;
  #running: Promise<void> | undefined;
  #again = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #poller: ReturnType<typeof setInterval> | undefined;
  #stopped = false;

  constructor(deps: DeliveryDeps) {
    this.#deps = deps;
    this.#fetch = deps.fetch ?? fetch;
    this.#now = deps.now ?? Date.now;
    if (deps.pollMs) {
      this.#poller = setInterval(() => this.kick(), deps.pollMs);
      // The timers never keep a process alive on their own (the server does).
      Deno.unrefTimer(this.#poller);
    }
  }

  /** Looks for due notifications now (in the background). */
  kick(): void {
    if (this.#stopped) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = this.#pass().catch((error) => {
      this.#deps.logger.error("back-channel logout delivery failed", { error });
    }).finally(() => {
      this.#running = undefined;
      if (this.#again) {
        this.#again = false;
        this.kick();
      }
    });
  }

  /** Resolves when no pass is running (tests: after `kick()`, wait for the attempts to finish). */
  async idle(): Promise<void> {
    while (this.#running) await this.#running;
  }

  /** Stops timers and waits for the running pass. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    clearInterval(this.#poller);
    await this.idle();
  }

  async #pass(): Promise<void> {
    const now = this.#now();
    const due = await this.#deps.client.execute({
      sql: "SELECT id, client_id, logout_uri, user_id, session_id, reason, created_at, next_attempt_at, " +
        "attempts FROM svc_backchannel_outbox WHERE done_at IS NULL AND next_attempt_at <= ? " +
        "ORDER BY next_attempt_at LIMIT ?",
      args: [now, BATCH],
    });
    const rows: OutboxRow[] = due.rows.map((r) => ({
      id: String(r.id),
      clientId: String(r.client_id),
      uri: String(r.logout_uri),
      userId: String(r.user_id),
      sessionId: r.session_id === null ? null : String(r.session_id),
      reason: String(r.reason),
      createdAt: Number(r.created_at),
      nextAttemptAt: Number(r.next_attempt_at),
      attempts: Number(r.attempts),
    }));
    await Promise.all(rows.map((row) => this.#attempt(row)));
    if (rows.length === BATCH) this.#again = true;
    await this.#scheduleNext();
  }

  /** Arms one timer for the earliest pending retry. */
  async #scheduleNext(): Promise<void> {
    const next = await this.#deps.client.execute(
      "SELECT min(next_attempt_at) AS at FROM svc_backchannel_outbox WHERE done_at IS NULL",
    );
    const at = next.rows[0]?.at;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (at === null || at === undefined || this.#stopped) return;
    const delay = Math.max(0, Number(at) - this.#now());
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.kick();
    }, delay);
    Deno.unrefTimer(this.#timer);
  }

  /** Claims `row`, sends it once, and records the outcome. */
  async #attempt(row: OutboxRow): Promise<void> {
    const timeoutMs = this.#deps.timeoutMs ?? 5000;
    const now = this.#now();
    // Claim: another instance (or pass) that read the same row loses here.
    const claimed = await this.#deps.client.execute({
      sql: "UPDATE svc_backchannel_outbox SET next_attempt_at = ?, attempts = attempts + 1 " +
        "WHERE id = ? AND next_attempt_at = ? AND done_at IS NULL",
      args: [now + timeoutMs + 5000, row.id, row.nextAttemptAt],
    });
    if (claimed.rowsAffected !== 1) return;
    const sent = await this.#send(row, now, timeoutMs);
    await this.#record(row, row.attempts + 1, sent);
  }

  /** Signs a fresh logout token and POSTs it; the receiver's status, or why the attempt failed. */
  async #send(row: OutboxRow, now: number, timeoutMs: number): Promise<{ status?: number; error?: string }> {
    try {
      const claims = logoutTokenClaims({
        issuer: this.#deps.issuer,
        clientId: row.clientId,
        userId: row.userId,
        sessionId: row.sessionId,
        now,
      });
      const token = await this.#deps.sign(claims, LOGOUT_TOKEN_TYPE);
      const response = await this.#fetch(row.uri, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", "cache-control": "no-store" },
        body: new URLSearchParams({ logout_token: token }).toString(),
        redirect: "manual",
        signal: AbortSignal.timeout(timeoutMs),
      });
      await response.body?.cancel().catch(() => undefined);
      return response.ok
        ? { status: response.status }
        : { status: response.status, error: `receiver answered ${response.status}` };
    } catch (cause) {
      return {
        error: cause instanceof DOMException && cause.name === "TimeoutError"
          ? `no answer within ${timeoutMs} ms`
          : `request failed (${cause instanceof Error ? cause.name : "error"})`,
      };
    }
  }

  /** Stores an attempt's outcome (next retry or done), logs it and calls the hook. */
  async #record(row: OutboxRow, attempt: number, sent: { status?: number; error?: string }): Promise<void> {
    const { status, error } = sent;
    const finished = this.#now();
    const refused = status !== undefined && status >= 400 && status < 500 && !RETRYABLE_4XX.has(status);
    const expired = finished - row.createdAt >= (this.#deps.retryForMs ?? 600_000);
    const outcome: DeliveryEvent["outcome"] = error === undefined
      ? "delivered"
      : refused || expired
      ? "failed"
      : "retrying";
    const backoff = Math.min(
      (this.#deps.backoffMs ?? 1000) * 2 ** (attempt - 1),
      this.#deps.maxBackoffMs ?? 60_000,
    );
    await this.#deps.client.execute(
      outcome === "retrying"
        ? {
          sql: "UPDATE svc_backchannel_outbox SET next_attempt_at = ?, outcome = ? WHERE id = ?",
          args: [finished + backoff, error ?? null, row.id],
        }
        : {
          sql: "UPDATE svc_backchannel_outbox SET done_at = ?, outcome = ? WHERE id = ?",
          args: [finished, outcome === "delivered" ? "delivered" : `failed: ${error}`, row.id],
        },
    );
    const fields = {
      event: "backchannel_logout",
      client_id: row.clientId,
      reason: row.reason,
      outcome,
      attempt,
    };
    if (outcome === "delivered") {
      this.#deps.logger.info("back-channel logout delivered", { ...fields, status });
    } else this.#deps.logger.warn("back-channel logout not delivered", { ...fields, status, error });
    const event: DeliveryEvent = {
      id: row.id,
      clientId: row.clientId,
      userId: row.userId,
      sessionId: row.sessionId,
      reason: row.reason,
      outcome,
      attempt,
      ...(status !== undefined ? { status } : {}),
      ...(error !== undefined ? { error } : {}),
    };
    try {
      await this.#deps.onDelivery?.(event);
    } catch (hookError) {
      this.#deps.logger.error("back-channel logout delivery hook failed", { error: hookError });
    }
  }
}
