/**
 * One timer for every stream's keep-alive checks. A `setTimeout`/`setInterval` per streaming request cost
 * ~10 µs each on the hot path (Deno's timers are Node-compatible objects); registering a callback in a
 * shared ticker costs an array slot. The ticker's interval exists only while callbacks are registered,
 * so an idle gateway (or a finished test) holds no timer.
 *
 * Why an array of slots and not a `Set`: a `Set` with an insertion and a removal per request rehashes into a
 * new table every few dozen requests, and V8 leaves each replaced table holding the entries it had (for live
 * iterators). A replaced table that had been promoted to the old generation keeps those requests' whole
 * graphs alive through every scavenge until the next full collection: under c=32 load ≈ 2.5 MB promoted per
 * scavenge, which then cost ≈ 7–17 ms each instead of ≈ 1–2.5 (docs/gateway.md, "Promotion by the tickers").
 * A removed slot's array element is overwritten or popped, so nothing stale points at a finished request.
 */

/** A registration in a {@link Ticker}, returned by {@link Ticker.insert}. */
export interface TickerSlot {
  /** The registered callback. */
  readonly task: () => void;
  /** Its place in the ticker's array; −1 once removed. */
  index: number;
}

/** Calls registered callbacks every `periodMs` with a single interval timer. */
export class Ticker {
  #periodMs: number;
  #lazyStop: boolean;
  #slots: TickerSlot[] = [];
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
    const slot = this.insert(task);
    return () => this.remove(slot);
  }

  /** Registers `task` (unregistered by {@link remove} with the slot returned): no closure, for hot paths. */
  insert(task: () => void): TickerSlot {
    const slot: TickerSlot = { task, index: this.#slots.length };
    this.#slots.push(slot);
    this.#timer ??= setInterval(() => this.#tick(), this.#periodMs);
    return slot;
  }

  /** Unregisters `slot` (nothing when it was removed already): the last slot takes its place. */
  remove(slot: TickerSlot | undefined): void {
    if (!slot || slot.index < 0) return;
    const slots = this.#slots;
    const last = slots.pop()!;
    if (last !== slot) {
      slots[slot.index] = last;
      last.index = slot.index;
    }
    slot.index = -1;
    if (slots.length === 0 && !this.#lazyStop) this.#stop();
  }

  #tick(): void {
    if (this.#slots.length === 0) return this.#stop();
    // A copy: tasks remove themselves (and others) while the tick runs; a removed one is skipped, as a
    // Set's iteration would, and one registered during the tick waits for the next.
    for (const slot of this.#slots.slice()) if (slot.index >= 0) slot.task();
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
