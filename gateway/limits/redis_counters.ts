/**
 * Limit counters in Redis, shared by every gateway instance (see counters.ts for the state kept). Each
 * admission and settlement is one Lua script, so it is atomic across instances; windows are counters with
 * a TTL set by the request that opens them, and ticket leases are scored by Redis's own clock (`TIME`), so
 * clock skew between instances neither double-counts nor frees tickets early. Keys:
 * `sy:rl:{key id}:req|tok|inflight|spend:{period}` (one hash tag per key id, cluster-safe).
 */
import { RedisConnection, type RedisConnectionOptions } from "./redis_connection.ts";
import {
  type AdmitRequest,
  type AdmitResult,
  type LimitCounters,
  type LimitKind,
  type SettleRequest,
  type UsageSnapshot,
  WINDOW_MS,
} from "./counters.ts";

/** Reads the state; with ARGV[8] = "1" checks the limits and, when all pass, counts the request. */
const ADMIT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[10])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
local req = tonumber(redis.call('GET', KEYS[1]) or '0')
local tok = tonumber(redis.call('GET', KEYS[2]) or '0')
local inflight = redis.call('ZCARD', KEYS[3])
local spent = tonumber(redis.call('GET', KEYS[4]) or '0')
local rpm, tpm, conc, budget = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local failed = ''
if ARGV[8] == '1' then
  if rpm >= 0 and req >= rpm then failed = 'requests'
  elseif tpm >= 0 and tok >= tpm then failed = 'tokens'
  elseif conc >= 0 and inflight >= conc then failed = 'concurrency'
  elseif budget >= 0 and spent >= budget then failed = 'budget'
  end
  if failed == '' then
    req = redis.call('INCR', KEYS[1])
    if req == 1 then redis.call('PEXPIRE', KEYS[1], window) end
    local est = tonumber(ARGV[5])
    if est > 0 then
      tok = redis.call('INCRBY', KEYS[2], est)
      if tok == est then redis.call('PEXPIRE', KEYS[2], window) end
    end
    local lease = tonumber(ARGV[9])
    redis.call('ZADD', KEYS[3], now + lease, ARGV[7])
    redis.call('PEXPIRE', KEYS[3], lease)
    inflight = inflight + 1
    local cost = tonumber(ARGV[6])
    if cost > 0 then
      spent = redis.call('INCRBY', KEYS[4], cost)
      if spent == cost then redis.call('PEXPIRE', KEYS[4], ARGV[11]) end
    end
  end
end
return { failed, req, redis.call('PTTL', KEYS[1]), tok, redis.call('PTTL', KEYS[2]), inflight, spent }
`;

/** Releases the ticket and adds the corrections to the token window and the period's spend. */
const SETTLE = `
redis.call('ZREM', KEYS[2], ARGV[1])
local function add(key, delta, ttl)
  if delta == 0 then return end
  if redis.call('EXISTS', key) == 1 then redis.call('INCRBY', key, delta)
  elseif delta > 0 then redis.call('SET', key, delta, 'PX', ttl) end
end
add(KEYS[1], tonumber(ARGV[2]), ARGV[4])
add(KEYS[3], tonumber(ARGV[3]), ARGV[5])
return 1
`;

export { RedisTimeoutError } from "./redis_connection.ts";

/** Options of {@link RedisCounters}: a connection's, or an open connection to share. */
export type RedisCountersOptions = RedisConnectionOptions | { connection: RedisConnection };

/** Counters in Redis. */
export class RedisCounters implements LimitCounters {
  /** The connection (shared with the deployment state of upstream/shared_deployments.ts). */
  readonly redis: RedisConnection;

  /** Connects lazily, on the first command; reconnects in the background after a failure. */
  constructor(options: RedisCountersOptions) {
    this.redis = "connection" in options ? options.connection : new RedisConnection(options);
  }

  /** Connections opened so far (a reconnect may have met a Redis restarted empty). */
  connection(): number {
    return this.redis.connection();
  }

  /**
   * Redis's clock, as this machine's plus the offset last measured with `TIME`: budget periods are named by
   * it, so instances whose clocks disagree around midnight still count into one period.
   */
  now(): number {
    return this.redis.now();
  }

  #run(script: string, keys: string[], args: Array<string | number>): Promise<unknown> {
    return this.redis.run(script, keys, args);
  }

  #keys(keyId: string, period: string): string[] {
    const tag = `sy:rl:{${keyId}}`;
    return [`${tag}:req`, `${tag}:tok`, `${tag}:inflight`, `${tag}:spend:${period}`];
  }

  async #admit(request: AdmitRequest, count: boolean): Promise<AdmitResult> {
    const { limits } = request;
    const reply = await this.#run(ADMIT, this.#keys(request.keyId, request.period), [
      limits.rpm ?? -1,
      limits.tpm ?? -1,
      limits.maxConcurrency ?? -1,
      limits.budgetUsd === undefined ? -1 : Math.round(limits.budgetUsd * 1e6),
      Math.max(0, Math.ceil(request.tokens)),
      Math.max(0, Math.ceil(request.costMicros)),
      request.ticket,
      count ? "1" : "0",
      request.leaseMs,
      WINDOW_MS,
      Math.max(1, Math.ceil(request.periodTtlMs)),
    ]) as [string, number, number, number, number, number, number];
    const [failed, req, reqTtl, tok, tokTtl, inflight, spent] = reply;
    const ttl = (ms: number) => ms > 0 ? ms : WINDOW_MS;
    return {
      ok: count && failed === "",
      failed: failed === "" ? undefined : failed as LimitKind,
      requests: { used: Number(req), resetMs: ttl(Number(reqTtl)) },
      tokens: { used: Number(tok), resetMs: ttl(Number(tokTtl)) },
      inFlight: Number(inflight),
      spentMicros: Number(spent),
    };
  }

  admit(request: AdmitRequest): Promise<AdmitResult> {
    return this.#admit(request, true);
  }

  async settle(request: SettleRequest): Promise<void> {
    const [req, tok, inflight, spend] = this.#keys(request.keyId, request.period);
    void req;
    await this.#run(SETTLE, [tok, inflight, spend], [
      request.ticket,
      Math.round(request.tokensDelta),
      Math.round(request.costMicrosDelta),
      WINDOW_MS,
      Math.max(1, Math.ceil(request.periodTtlMs)),
    ]);
  }

  async snapshot(keyId: string, period: string): Promise<UsageSnapshot> {
    const { ok: _, failed: __, ...view } = await this.#admit({
      keyId,
      limits: {},
      tokens: 0,
      costMicros: 0,
      ticket: "",
      period,
      periodTtlMs: 1,
      leaseMs: 1,
    }, false);
    return view;
  }

  async seedSpend(keyId: string, period: string, micros: number, periodTtlMs: number): Promise<void> {
    const spend = this.#keys(keyId, period)[3];
    await this.redis.command([
      "SET",
      spend,
      String(Math.max(0, Math.round(micros))),
      "NX",
      "PX",
      String(Math.max(1, Math.ceil(periodTtlMs))),
    ]);
  }

  close(): Promise<void> {
    return this.redis.close();
  }
}
