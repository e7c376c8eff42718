/**
 * One timer for every stream's keep-alive checks. A `setTimeout`/`setInterval` per streaming request cost
 * ~10 µs each on the hot path (Deno's timers are Node-compatible objects); registering a callback in a
 * shared ticker costs a Set insertion. The ticker's interval exists only while callbacks are registered,
 * so an idle gateway (or a finished test) holds no timer.
 */

/** Calls registered callbacks every `periodMs` with a single interval timer. */
export class Ticker {
  #periodMs: number;
  #lazyStop: boolean;
  #tasks = new Set<() => void>();
  #timer: ReturnType<typeof setInterval> | undefined;

  /**
   * A ticker firing every `periodMs`. With `lazyStop` the interval outlives its last task by up to one
   * period (it stops on a tick that finds no task): one-request-at-a-time traffic, where each request
   * registers and removes a task, then reuses one interval instead of creating and clearing one per request.
   */
  constructor(periodMs: number, lazyStop = false) {
    this.#periodMs = periodMs;
    this.#lazyStop = lazyStop;
  }

  /** True while the interval timer exists (some task is registered). */
  get running(): boolean {
    return this.#timer !== undefined;
  }

  /** Registers `task`; returns the function that unregisters it. */
  add(task: () => void): () => void {
    this.insert(task);
    return () => this.remove(task);
  }

  /** Registers `task` (unregistered by {@link remove}): no closure per registration, for hot paths. */
  insert(task: () => void): void {
    this.#tasks.add(task);
    this.#timer ??= setInterval(() => {
      if (this.#tasks.size === 0) return this.#stop();
      for (const t of this.#tasks) t();
    }, this.#periodMs);
  }

  /** Unregisters `task` (nothing when it is not registered). */
  remove(task: () => void): void {
    this.#tasks.delete(task);
    if (this.#tasks.size === 0 && !this.#lazyStop) this.#stop();
  }

  #stop(): void {
    if (this.#timer === undefined) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

const tickers = new Map<number, Ticker>();

/** The shared ticker of a period (keep-alive checks use half the ping interval, at least 5 ms). */
export function tickerFor(periodMs: number): Ticker {
  let ticker = tickers.get(periodMs);
  if (!ticker) tickers.set(periodMs, ticker = new Ticker(periodMs));
  return ticker;
}

const deadlineTickers = new Map<number, Ticker>();

/** The shared lazily-stopping ticker of a period, for deadlines registered and removed per request. */
export function deadlineTickerFor(periodMs: number): Ticker {
  let ticker = deadlineTickers.get(periodMs);
  if (!ticker) deadlineTickers.set(periodMs, ticker = new Ticker(periodMs, true));
  return ticker;
}

/** The check period for a ping interval. */
export function checkPeriod(pingIntervalMs: number): number {
  return Math.max(5, Math.floor(pingIntervalMs / 2));
}
