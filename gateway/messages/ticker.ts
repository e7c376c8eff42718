/**
 * One timer for every stream's keep-alive checks. A `setTimeout`/`setInterval` per streaming request cost
 * ~10 µs each on the hot path (Deno's timers are Node-compatible objects); registering a callback in a
 * shared ticker costs a Set insertion. The ticker's interval exists only while callbacks are registered,
 * so an idle gateway (or a finished test) holds no timer.
 */

/** Calls registered callbacks every `periodMs` with a single interval timer. */
export class Ticker {
  #periodMs: number;
  #tasks = new Set<() => void>();
  #timer: ReturnType<typeof setInterval> | undefined;

  /** A ticker firing every `periodMs`. */
  constructor(periodMs: number) {
    this.#periodMs = periodMs;
  }

  /** True while the interval timer exists (some task is registered). */
  get running(): boolean {
    return this.#timer !== undefined;
  }

  /** Registers `task`; returns the function that unregisters it. */
  add(task: () => void): () => void {
    this.#tasks.add(task);
    this.#timer ??= setInterval(() => {
      for (const t of this.#tasks) t();
    }, this.#periodMs);
    return () => {
      this.#tasks.delete(task);
      if (this.#tasks.size === 0 && this.#timer !== undefined) {
        clearInterval(this.#timer);
        this.#timer = undefined;
      }
    };
  }
}

const tickers = new Map<number, Ticker>();

/** The shared ticker of a period (keep-alive checks use half the ping interval, at least 5 ms). */
export function tickerFor(periodMs: number): Ticker {
  let ticker = tickers.get(periodMs);
  if (!ticker) tickers.set(periodMs, ticker = new Ticker(periodMs));
  return ticker;
}

/** The check period for a ping interval. */
export function checkPeriod(pingIntervalMs: number): number {
  return Math.max(5, Math.floor(pingIntervalMs / 2));
}
