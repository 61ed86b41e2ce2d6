/**
 * A file's own VTIMEZONE, mended where ical.js would read it otherwise than RFC 5545 and the
 * clients that honour a file's zones (libical, so Thunderbird and Evolution) do:
 * - an observance's DTSTART is its first onset (RFC 5545 §3.6.5), but ical.js reads only the
 *   RDATEs of an observance that has any, so a DAYLIGHT that starts at DTSTART and recurs by
 *   RDATE would lose its first summer: the DTSTART is added among the RDATEs;
 * - ical.js gives a time before the zone's first onset the offset 0, so an event from before a
 *   VTIMEZONE a client cut short (RFC 5545's own §4 example, calendar servers' truncated zones)
 *   reads as UTC, hours off. TZOFFSETFROM is "the UTC offset that is in use prior to" an onset
 *   (RFC 5545 §3.8.3.3), so the first onset's TZOFFSETFROM holds before it: written as an
 *   observance from 1601, as Exchange writes one.
 */
import ICAL from "ical.js";
import { readableValue, reasonOf } from "./unreadable.js";

/** Named here, not imported from read.ts, which imports this file. */
type IcalComponent = InstanceType<typeof ICAL.Component>;

const EARLIEST = "16010101T000000";

/**
 * Mends `vtimezone` (above) and says what makes it unusable — no TZID, an observance without
 * its onset or offsets, a value that does not decode, rules ical.js cannot evaluate — or
 * `undefined`. An unusable VTIMEZONE is the caller's to drop: ical.js would otherwise fail on it
 * (a TypeError for a VTIMEZONE without TZID) for every event of the file, not only its own.
 */
export function mendOwnZone(vtimezone: IcalComponent): string | undefined {
  const tzid = readableValue(vtimezone, "tzid");
  if (typeof tzid !== "string" || tzid.trim() === "") return "it has no TZID";
  const observances = vtimezone.getAllSubcomponents().filter((c) => c.name === "standard" || c.name === "daylight");
  if (observances.length === 0) return "it has no STANDARD or DAYLIGHT observance";
  for (const observance of observances) {
    const name = observance.name.toUpperCase();
    try {
      for (const prop of observance.getAllProperties()) prop.getValues();
    } catch (error) {
      return `a ${name} observance cannot be read (${reasonOf(error, "an unexpected value")})`;
    }
    if (!(observance.getFirstPropertyValue("dtstart") instanceof ICAL.Time)) return `a ${name} observance has no DTSTART`;
    for (const offset of ["tzoffsetfrom", "tzoffsetto"]) {
      if (!(observance.getFirstPropertyValue(offset) instanceof ICAL.UtcOffset)) return `a ${name} observance has no ${offset.toUpperCase()}`;
    }
  }
  for (const observance of observances) onsetAsRdate(observance);
  offsetBeforeFirstOnset(vtimezone);
  try {
    new ICAL.Timezone({ component: vtimezone, tzid }).utcOffset(ICAL.Time.fromDateTimeString("2000-01-01T00:00:00"));
  } catch (error) {
    return `its rules cannot be evaluated (${reasonOf(error, "an unexpected shape")})`;
  }
  return undefined;
}

function onsetAsRdate(observance: IcalComponent): void {
  const rdates = observance.getAllProperties("rdate");
  const dtstart = observance.getFirstPropertyValue("dtstart");
  if (rdates.length === 0 || !(dtstart instanceof ICAL.Time)) return;
  const listed = rdates.some((p) => (p.getValues() as unknown[]).some((v) => v instanceof ICAL.Time && v.compare(dtstart) === 0));
  if (!listed) observance.addPropertyWithValue("rdate", dtstart.clone());
}

function offsetBeforeFirstOnset(vtimezone: IcalComponent): void {
  let first: { at: InstanceType<typeof ICAL.Time>; from: unknown } | undefined;
  for (const observance of vtimezone.getAllSubcomponents()) {
    if (observance.name !== "standard" && observance.name !== "daylight") continue;
    const at = observance.getFirstPropertyValue("dtstart");
    const from = observance.getFirstPropertyValue("tzoffsetfrom");
    if (!(at instanceof ICAL.Time) || !(from instanceof ICAL.UtcOffset)) continue;
    if (first === undefined || at.compare(first.at) < 0) first = { at, from };
  }
  if (first === undefined || first.at.toICALString() <= EARLIEST) return;
  const before = new ICAL.Component("standard");
  before.addPropertyWithValue("dtstart", ICAL.Time.fromDateTimeString("1601-01-01T00:00:00"));
  before.addPropertyWithValue("tzoffsetfrom", first.from);
  before.addPropertyWithValue("tzoffsetto", first.from);
  vtimezone.addSubcomponent(before);
}
