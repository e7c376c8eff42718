import { assertEquals } from "../test_assert.ts";
import { fnv1a32, parseSchedule, validateCron } from "./schedule.ts";

Deno.test("FNV-1a 32 matches the reference vectors", () => {
  assertEquals(fnv1a32(""), 0x811c9dc5);
  assertEquals(fnv1a32("a"), 0xe40c292c);
  assertEquals(fnv1a32("foobar"), 0xbf9cf968);
});

Deno.test("daily schedules scatter deterministically per seed", () => {
  const a = parseSchedule("daily", "dev/.github/workflows/metrics-collector.md");
  assertEquals(a, { kind: "fuzzy", cron: "23 2 * * *", friendly: "daily" });
  const b = parseSchedule("daily", "dev/.github/workflows/other.md");
  assertEquals(b.kind, "fuzzy");
  assertEquals(parseSchedule("daily", "dev/.github/workflows/other.md"), b);
});

Deno.test("weekday, weekly, around and hourly forms produce the right cron shapes", () => {
  const seed = "acme/widgets/.github/workflows/x.md";
  const wk = parseSchedule("daily on weekdays", seed);
  assertEquals(wk.kind === "fuzzy" && wk.cron.endsWith(" * * 1-5"), true);
  const mon = parseSchedule("weekly on monday around 9:00", seed);
  assertEquals(mon.kind === "fuzzy" && / (8|9|10) \* \* 1$/.test(mon.cron), true);
  const h = parseSchedule("every 6h", seed);
  assertEquals(h.kind === "fuzzy" && /^\d+ \*\/6 \* \* \*$/.test(h.cron), true);
  assertEquals(parseSchedule("every 30m", seed), { kind: "cron", cron: "*/30 * * * *" });
  assertEquals(parseSchedule("every 3 days", seed), { kind: "cron", cron: "0 0 */3 * *" });
});

Deno.test("plain crons pass through and invalid ones are rejected", () => {
  assertEquals(parseSchedule("15 9 1 * *", "s"), { kind: "cron", cron: "15 9 1 * *" });
  assertEquals(parseSchedule("61 9 * * *", "s").kind, "error");
  assertEquals(validateCron("0 24 * * *") !== undefined, true);
  assertEquals(parseSchedule("every 2m", "s").kind, "error");
  assertEquals(parseSchedule("sometimes", "s").kind, "error");
});
