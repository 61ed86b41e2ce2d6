import { Cron } from "croner";
import { InvalidInputError } from "../errors.js";

/** The next tick of `expression` (in `timezone`, default UTC) strictly after `after`, or null when there is none. */
export function nextCronTime(expression: string, options: { after: number; timezone?: string | null }): number | null {
  const cron = parseCron(expression, options.timezone ?? null);
  const next = cron.nextRun(new Date(options.after));
  return next === null ? null : next.getTime();
}

/** Throws `InvalidInputError` (field `cron` or `timezone`) unless croner accepts both. */
export function checkCron(expression: string, timezone: string | null): void {
  if (timezone !== null) checkTimezone(timezone);
  parseCron(expression, timezone);
}

function parseCron(expression: string, timezone: string | null): Cron {
  try {
    // `paused`: croner only computes times here; the Scheduler owns the timer.
    return new Cron(expression, { paused: true, timezone: timezone ?? "UTC" });
  } catch (error) {
    throw new InvalidInputError(`cron: ${JSON.stringify(expression)}: ${error instanceof Error ? error.message : String(error)}`, { field: "cron", cause: error });
  }
}

function checkTimezone(timezone: string): void {
  try {
    new Intl.DateTimeFormat("en", { timeZone: timezone });
  } catch (error) {
    throw new InvalidInputError(`timezone: ${JSON.stringify(timezone)} is not an IANA time zone such as Europe/Stockholm or UTC`, { field: "timezone", cause: error });
  }
}
