import { InvalidInputError } from "../../../errors.js";
import { MAX_PATTERN_MS } from "./store.js";

/** When a pattern ends, and the same said for a person. */
export interface PatternExpiry {
  readonly at: number;
  /** `until 2026-12-07T19:34:37.276Z`, or for `today` `until midnight Europe/Berlin (2026-12-07T23:00:00.000Z)`. */
  readonly said: string;
}

const UNIT_MS: Readonly<Record<string, number>> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** What every door accepts: `30m`, `2h`, `1d` (at most 30 days) or `today`. */
export const DURATION_FORMS = "30m, 2h, 1d or today";

/**
 * A pattern's deadline from a duration counted from `now`: `Nm`, `Nh`, `Nd`, or `today`, which
 * lasts until the next midnight of the server's time zone (the zone is named in `said`, since
 * the person deciding may be in another one). Bad input is a 400 naming `field`.
 */
export function durationExpiry(text: string, now: number, field: string): PatternExpiry {
  if (text === "today") {
    const midnight = new Date(now);
    midnight.setHours(24, 0, 0, 0);
    const at = midnight.getTime();
    return { at, said: `until midnight ${serverZone()} (${new Date(at).toISOString()})` };
  }
  const m = /^([1-9][0-9]{0,4})([mhd])$/.exec(text);
  if (!m) throw new InvalidInputError(`${field}: ${JSON.stringify(text)} is not a duration like ${DURATION_FORMS}`, { field });
  const ms = Number(m[1]) * UNIT_MS[m[2]!]!;
  if (ms > MAX_PATTERN_MS) throw new InvalidInputError(`${field}: a pattern lasts at most 30 days`, { field });
  return { at: now + ms, said: `until ${new Date(now + ms).toISOString()}` };
}

/** The server's IANA time zone (`TZ`, else the system's), `UTC` when it has none. */
export function serverZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone ?? "UTC";
}
