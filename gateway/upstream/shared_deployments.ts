/**
 * The deployment state of upstream/deployments.ts in Redis, shared by every gateway instance on one
 * `GATEWAY_REDIS_URL`: cooldowns (a key per deployment with the cooldown as its TTL), attempts in flight (a
 * sorted set of tickets per deployment scored by their lease's end, so a crashed instance's tickets expire),
 * the minute's request and token counts (`rpm` / `tpm`), the latency EWMA and the health checks' verdict.
 * Reads and writes are one Lua script each, timed by Redis's own clock. Keys:
 * `sy:dp:{group}:cool|fly|req:{minute}|tok:{minute}|down:{target}` and `sy:dp:{group}:ewma` (one hash tag per
 * group, cluster-safe; group and target percent-encoded).
 */
import type { RedisConnection } from "../limits/redis_connection.ts";

/** What Redis holds for one deployment of a group. */
export interface SharedSnapshot {
  /** Milliseconds its cooldown still runs (0: none). */
  coolForMs: number;
  /** Attempts in flight at every instance. */
  inFlight: number;
  /** Requests started this minute, at every instance. */
  requests: number;
  /** Input tokens (estimates) started this minute, at every instance. */
  tokens: number;
  /** The shared latency EWMA, once measured. */
  ewmaMs?: number;
  /** Milliseconds an instance's failed health check still holds it out (0: none). */
  downForMs: number;
}

/** The store the deployment pool mirrors its state into. */
export interface SharedDeploymentState {
  /** Redis's clock (minutes of the rpm / tpm counts are named by it). */
  now(): number;
  /** The state of each of `targets` (a group's members, in order). */
  read(group: string, targets: readonly string[], minute: number): Promise<SharedSnapshot[]>;
  /** An attempt started: its ticket joins the in-flight set, the minute's counts grow. */
  start(group: string, target: string, ticket: string, tokens: number, minute: number): Promise<void>;
  /** Adds `delta` (may be negative; never below 0) to a minute's token count, if that minute is still kept. */
  addTokens(group: string, target: string, delta: number, minute: number): Promise<void>;
  /** An attempt ended: its ticket leaves; `ms` (success) feeds the EWMA; `coolMs` starts a cooldown. */
  finish(group: string, target: string, ticket: string, ms?: number, coolMs?: number): Promise<void>;
  /** A health check's verdict: out for `ms` (refreshed by each failing check), or back (`ms` 0). */
  health(group: string, target: string, ms: number): Promise<void>;
  /** Answers when Redis answers (probing its return after an outage). */
  ping(): Promise<void>;
}

/** Weight of the newest sample in the latency EWMA (as deployments.ts). */
const ALPHA = 0.3;
/** How long minute counters are kept (the minute, plus room for clock offsets). */
const MINUTE_TTL_MS = 120_000;
/** How long the EWMAs of an idle group are kept. */
const EWMA_TTL_MS = 3_600_000;

const READ = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local n = tonumber(ARGV[1])
local out = {}
for i = 0, n - 1 do
  local k = i * 5
  redis.call('ZREMRANGEBYSCORE', KEYS[k + 2], '-inf', now)
  out[#out + 1] = redis.call('PTTL', KEYS[k + 1])
  out[#out + 1] = redis.call('ZCARD', KEYS[k + 2])
  out[#out + 1] = tonumber(redis.call('GET', KEYS[k + 3]) or '0')
  out[#out + 1] = tonumber(redis.call('GET', KEYS[k + 4]) or '0')
  out[#out + 1] = redis.call('PTTL', KEYS[k + 5])
  out[#out + 1] = redis.call('HGET', KEYS[n * 5 + 1], ARGV[i + 2]) or ''
end
return out
`;

const START = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease = tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], now + lease, ARGV[1])
redis.call('PEXPIRE', KEYS[1], lease)
if redis.call('INCR', KEYS[2]) == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[4]) end
local tok = tonumber(ARGV[3])
if tok > 0 and redis.call('INCRBY', KEYS[3], tok) == tok then redis.call('PEXPIRE', KEYS[3], ARGV[4]) end
return 1
`;

// A minute's key may not exist yet (the attempt was counted for 0 tokens): an increase creates it with the
// minute keys' TTL; a decrease of a missing key has nothing to correct. Never below 0 (no KEEPTTL: Redis 5).
const ADD_TOKENS = `
local delta = tonumber(ARGV[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl == -2 then
  if delta > 0 then redis.call('SET', KEYS[1], delta, 'PX', ARGV[2]) end
  return 1
end
if redis.call('INCRBY', KEYS[1], delta) < 0 then
  if ttl > 0 then redis.call('SET', KEYS[1], '0', 'PX', ttl) else redis.call('SET', KEYS[1], '0') end
end
return 1
`;

const FINISH = `
redis.call('ZREM', KEYS[1], ARGV[1])
if ARGV[2] ~= '' then
  local ms = tonumber(ARGV[2])
  local alpha = tonumber(ARGV[5])
  local old = redis.call('HGET', KEYS[3], ARGV[4])
  local ewma = ms
  if old then ewma = alpha * ms + (1 - alpha) * tonumber(old) end
  redis.call('HSET', KEYS[3], ARGV[4], tostring(ewma))
  redis.call('PEXPIRE', KEYS[3], ARGV[6])
end
if ARGV[3] ~= '' then
  local ms = tonumber(ARGV[3])
  if redis.call('PTTL', KEYS[2]) < ms then redis.call('SET', KEYS[2], '1', 'PX', ms) end
end
return 1
`;

/** Options of {@link RedisDeploymentState}. */
export interface RedisDeploymentStateOptions {
  /** Longest an attempt's ticket counts as in flight if its end is never recorded (default 120 s). */
  leaseMs?: number;
}

/** The shared deployment state in Redis. */
export class RedisDeploymentState implements SharedDeploymentState {
  #redis: RedisConnection;
  #leaseMs: number;

  /** Uses `redis` (the gateway's one connection, shared with the limit counters). */
  constructor(redis: RedisConnection, options: RedisDeploymentStateOptions = {}) {
    this.#redis = redis;
    this.#leaseMs = options.leaseMs ?? 120_000;
  }

  now(): number {
    return this.#redis.now();
  }

  #key(group: string, what: string, target?: string): string {
    const tail = target === undefined ? what : `${what}:${encodeURIComponent(target)}`;
    return `sy:dp:{${encodeURIComponent(group)}}:${tail}`;
  }

  async read(group: string, targets: readonly string[], minute: number): Promise<SharedSnapshot[]> {
    const keys: string[] = [];
    for (const target of targets) {
      keys.push(
        this.#key(group, "cool", target),
        this.#key(group, "fly", target),
        this.#key(group, `req:${minute}`, target),
        this.#key(group, `tok:${minute}`, target),
        this.#key(group, "down", target),
      );
    }
    keys.push(this.#key(group, "ewma"));
    const reply = await this.#redis.run(READ, keys, [targets.length, ...targets]) as Array<number | string>;
    return targets.map((_, i) => {
      const [cool, fly, req, tok, down, ewma] = reply.slice(i * 6, i * 6 + 6);
      return {
        coolForMs: Math.max(0, Number(cool)),
        inFlight: Number(fly),
        requests: Number(req),
        tokens: Number(tok),
        ewmaMs: ewma === "" || ewma === null ? undefined : Number(ewma),
        downForMs: Math.max(0, Number(down)),
      };
    });
  }

  async start(group: string, target: string, ticket: string, tokens: number, minute: number): Promise<void> {
    await this.#redis.run(START, [
      this.#key(group, "fly", target),
      this.#key(group, `req:${minute}`, target),
      this.#key(group, `tok:${minute}`, target),
    ], [ticket, this.#leaseMs, Math.max(0, Math.ceil(tokens)), MINUTE_TTL_MS]);
  }

  async addTokens(group: string, target: string, delta: number, minute: number): Promise<void> {
    if (!Number.isSafeInteger(delta) || delta === 0) return;
    await this.#redis.run(ADD_TOKENS, [this.#key(group, `tok:${minute}`, target)], [delta, MINUTE_TTL_MS]);
  }

  async finish(group: string, target: string, ticket: string, ms?: number, coolMs?: number): Promise<void> {
    await this.#redis.run(FINISH, [
      this.#key(group, "fly", target),
      this.#key(group, "cool", target),
      this.#key(group, "ewma"),
    ], [
      ticket,
      ms === undefined ? "" : Math.max(0, ms),
      coolMs === undefined ? "" : Math.max(1, Math.ceil(coolMs)),
      target,
      ALPHA,
      EWMA_TTL_MS,
    ]);
  }

  async health(group: string, target: string, ms: number): Promise<void> {
    const key = this.#key(group, "down", target);
    await this.#redis.command(ms > 0 ? ["SET", key, "1", "PX", String(Math.ceil(ms))] : ["DEL", key]);
  }

  async ping(): Promise<void> {
    await this.#redis.command(["PING"]);
  }
}
