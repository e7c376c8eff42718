/**
 * Fuzzy schedules ("daily", "weekly on monday around 9:00", "every 6h"…) and their deterministic
 * scattering over the day with FNV-1a, bit-compatible with gh-aw so recompiles never move a cron.
 */

/** FNV-1a 32-bit hash of the UTF-8 bytes of `s`. */
export function fnv1a32(s: string): number {
  let h = 0x811c9dc5;
  for (const b of new TextEncoder().encode(s)) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

const H = (seed: string, m: number): number => fnv1a32(seed) % m;
const HOURS = [2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5, ...Array.from({ length: 18 }, (_, i) => i + 6)];
const MINUTES = [
  ...range(5, 11),
  ...range(19, 26),
  ...range(34, 41),
  ...range(49, 54),
];
function range(a: number, b: number): number[] {
  return Array.from({ length: b - a + 1 }, (_, i) => a + i);
}

const WEEKDAYS: Record<string, number> = {
  sunday: 0,
  monday: 1,
  tuesday: 2,
  wednesday: 3,
  thursday: 4,
  friday: 5,
  saturday: 6,
};

/** Result of interpreting a schedule string. */
export type ScheduleParse =
  | { kind: "cron"; cron: string }
  | { kind: "fuzzy"; cron: string; friendly: string }
  | { kind: "error"; message: string; hint: string };

function slot(seed: string): [number, number] {
  const i = H(seed, 30);
  return [HOURS[i], MINUTES[H(`${seed}:${i}`, 29)]];
}

function parseTime(text: string): [number, number] | undefined {
  const t = text.toLowerCase();
  if (t === "noon") return [12, 0];
  if (t === "midnight") return [0, 0];
  let m = /^(\d{1,2}):(\d{2})$/.exec(t);
  if (m && +m[1] < 24 && +m[2] < 60) return [+m[1], +m[2]];
  m = /^(\d{1,2})(?::(\d{2}))?(am|pm)$/.exec(t);
  if (m && +m[1] >= 1 && +m[1] <= 12) {
    let h = +m[1] % 12;
    if (m[3] === "pm") h += 12;
    return [h, m[2] ? +m[2] : 0];
  }
  return undefined;
}

function fixMinute(h: number, m: number): number {
  if (m < 5) m += 5;
  else if (m > 54) m -= 5;
  if (h >= 6 && h <= 9 && m >= 27 && m <= 33) return 34;
  if (h >= 14 && h <= 18 && m >= 12 && m <= 18) return 19;
  if (h >= 14 && h <= 18 && m >= 42 && m <= 48) return 49;
  return m;
}

/** True when `s` looks like a plain 5-field cron expression. */
export function isCron(s: string): boolean {
  const f = s.trim().split(/\s+/);
  return f.length === 5 && f.every((x) => /^[0-9*/,\-A-Za-z?LW#]+$/.test(x)) && /[0-9*]/.test(f[0]);
}

/** Validates a standard cron (ranges of each field); returns an error message or undefined. */
export function validateCron(s: string): string | undefined {
  const f = s.trim().split(/\s+/);
  if (f.length !== 5) return `cron "${s}" must have 5 fields (minute hour day month weekday)`;
  const limits: [number, number][] = [[0, 59], [0, 23], [1, 31], [1, 12], [0, 7]];
  for (let i = 0; i < 5; i++) {
    for (const part of f[i].split(",")) {
      const [base, step] = part.split("/");
      if (step !== undefined && !/^\d+$/.test(step)) return `invalid step "${part}" in cron "${s}"`;
      if (base === "*") continue;
      const names = i === 3 || i === 4;
      for (const v of base.split("-")) {
        if (/^\d+$/.test(v)) {
          if (+v < limits[i][0] || +v > limits[i][1]) return `value ${v} out of range in cron "${s}"`;
        } else if (!(names && /^[a-z]{3}$/i.test(v))) return `invalid field "${part}" in cron "${s}"`;
      }
    }
  }
  return undefined;
}

/**
 * Interprets a schedule string: a cron passes through; a fuzzy form is scattered with `seed`
 * (`dev/<relpath>` for dev builds, `<owner/repo>/<relpath>` otherwise).
 */
export function parseSchedule(input: string, seed: string): ScheduleParse {
  const raw = input.trim();
  if (isCron(raw)) {
    const err = validateCron(raw);
    return err
      ? { kind: "error", message: err, hint: "use a valid 5-field cron or a fuzzy schedule such as `daily`" }
      : { kind: "cron", cron: raw };
  }
  const s = raw.toLowerCase().replace(/\s+/g, " ");
  const friendly = raw.replace(/\s+/g, " ");
  const fuzzy = (cron: string) => ({ kind: "fuzzy" as const, cron, friendly });
  let weekdays = false;
  let rest = s;
  if (rest.endsWith(" on weekdays")) {
    weekdays = true;
    rest = rest.slice(0, -" on weekdays".length);
  }
  const dow = weekdays ? "1-5" : "*";
  if (rest === "daily" || rest === "every day" || rest === "every 1d" || rest === "every 1 day") {
    const [h, m] = slot(seed);
    return fuzzy(`${m} ${h} * * ${dow}`);
  }
  let m = /^daily around (\S+)$/.exec(rest);
  if (m) {
    const t = parseTime(m[1]);
    if (!t) return badTime(m[1]);
    let total = t[0] * 60 + t[1] + H(seed, 120) - 60;
    total = ((total % 1440) + 1440) % 1440;
    const h = Math.floor(total / 60);
    return fuzzy(`${fixMinute(h, total % 60)} ${h} * * ${dow}`);
  }
  m = /^daily between (\S+) and (\S+)$/.exec(rest);
  if (m) {
    const a = parseTime(m[1]), b = parseTime(m[2]);
    if (!a || !b) return badTime(!a ? m[1] : m[2]);
    const start = a[0] * 60 + a[1];
    let end = b[0] * 60 + b[1];
    if (end <= start) end += 1440;
    const total = (start + H(seed, end - start)) % 1440;
    const h = Math.floor(total / 60);
    return fuzzy(`${fixMinute(h, total % 60)} ${h} * * ${dow}`);
  }
  if (rest === "hourly" || rest === "every 1h" || rest === "every hour") {
    return fuzzy(`${H(seed, 50) + 5} */1 * * ${dow}`);
  }
  if (weekdays) {
    return {
      kind: "error",
      message: `"on weekdays" is not supported with "${rest}"`,
      hint: "use `daily on weekdays`",
    };
  }
  m = /^weekly(?: on (\w+))?(?: (around|at) (\S+))?$/.exec(rest);
  if (m) {
    const day = m[1] === undefined ? undefined : WEEKDAYS[m[1]];
    if (m[1] !== undefined && day === undefined) {
      return { kind: "error", message: `unknown weekday "${m[1]}"`, hint: "use monday … sunday" };
    }
    if (m[3]) {
      const t = parseTime(m[3]);
      if (!t) return badTime(m[3]);
      if (m[2] === "at") {
        return fuzzy(`${t[1]} ${t[0]} * * ${day ?? H(seed, 7)}`);
      }
      let total = t[0] * 60 + t[1] + H(seed, 120) - 60;
      total = ((total % 1440) + 1440) % 1440;
      const h = Math.floor(total / 60);
      return fuzzy(`${fixMinute(h, total % 60)} ${h} * * ${day ?? H(seed, 7)}`);
    }
    const [h, mm] = slot(seed);
    return fuzzy(`${mm} ${h} * * ${day ?? H(seed, 7)}`);
  }
  if (rest === "bi-weekly" || rest === "biweekly") {
    const [h, mm] = slot(seed);
    return fuzzy(`${mm} ${h} */14 * *`);
  }
  if (rest === "tri-weekly") {
    const [h, mm] = slot(seed);
    return fuzzy(`${mm} ${h} */21 * *`);
  }
  m = /^every (\d+) ?(m|min|mins|minutes?|h|hrs?|hours?|d|days?|w|weeks?)$/.exec(rest);
  if (m) {
    const n = +m[1];
    const unit = m[2][0];
    if (unit === "m") {
      if (n < 5) {
        return {
          kind: "error",
          message: `"${raw}" is too frequent; the minimum interval is 5 minutes`,
          hint: "use `every 5m` or more",
        };
      }
      return { kind: "cron", cron: `*/${n} * * * *` };
    }
    if (unit === "h") return fuzzy(`${H(seed, 50) + 5} */${n} * * *`);
    if (unit === "d") {
      if (n === 1) {
        const [h, mm] = slot(seed);
        return fuzzy(`${mm} ${h} * * *`);
      }
      return { kind: "cron", cron: `0 0 */${n} * *` };
    }
    const [h, mm] = slot(seed);
    return fuzzy(`${mm} ${h} */${n * 7} * *`);
  }
  return {
    kind: "error",
    message: `unrecognised schedule "${raw}"`,
    hint: "use a 5-field cron or a fuzzy form: daily, daily around 9:00, hourly, weekly on monday, every 6h",
  };
}

function badTime(t: string): ScheduleParse {
  return {
    kind: "error",
    message: `invalid time "${t}"`,
    hint: "use HH:MM (24h), 9am, 5pm, noon or midnight",
  };
}
