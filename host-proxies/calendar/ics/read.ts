/**
 * One .ics file, parsed for listing: repaired (repair.ts), parsed by ical.js, and with a
 * VTIMEZONE injected for every TZID the file uses but does not define, so that ical.js (which
 * otherwise reads such times as floating) places them right. The file's own VTIMEZONEs win
 * (RFC 5545 §3.6.5); injected ones come from the IANA database (vtimezone.ts).
 */
import ICAL from "ical.js";
import { HostProxyError } from "../../types.js";
import { canonicalZone } from "../time.js";
import { dropUnreadableLines, repairIcs } from "./repair.js";
import { vtimezoneLines } from "./vtimezone.js";
import type { CalendarWarning } from "./warnings.js";
import { ianaZoneOf, offsetOnlyZone } from "./zones.js";

export type IcalComponent = InstanceType<typeof ICAL.Component>;

export interface ParsedCalendar {
  root: IcalComponent;
  /** `X-WR-CALNAME`, when the file names itself. */
  name: string | undefined;
  /** Where floating times and all-day dates are placed: `X-WR-TIMEZONE`, else the backend's zone. */
  floatingZone: string;
  /** TZID → the IANA name an event reports (`undefined`: the TZID names no zone we know). */
  zoneLabels: Map<string, string | undefined>;
  /** TZIDs the file defines itself (not injected). */
  definedTzids: Set<string>;
  /** What was mended, dropped or guessed while reading (repair.ts, unknown TZIDs, expand.ts). */
  warnings: CalendarWarning[];
}

export interface ParseOptions {
  /** The backend's zone for floating times when the file has no `X-WR-TIMEZONE`. */
  defaultZone: string;
  /** Years the listing needs offsets for (the window, a year either side). */
  years: { fromYear: number; toYear: number };
  /** Names the file in error messages. */
  label: string;
}

/** Throws `io` when even the mended text is not iCalendar. */
export function parseCalendar(bytes: Uint8Array, options: ParseOptions): ParsedCalendar {
  let repaired = repairIcs(bytes);
  let jcal: unknown;
  try {
    jcal = ICAL.parse(repaired.text);
  } catch {
    repaired = dropUnreadableLines(repaired);
    try {
      jcal = ICAL.parse(repaired.text);
    } catch (error) {
      throw HostProxyError.io(`${options.label}: not a readable iCalendar file: ${error instanceof Error ? error.message.slice(0, 200) : String(error)}`, error);
    }
  }
  const root = rootOf(jcal, options.label);
  const warnings = [...repaired.warnings];
  const wrZone = root.getFirstPropertyValue("x-wr-timezone");
  const floatingZone = (typeof wrZone === "string" ? canonicalZone(wrZone.trim()) : undefined) ?? options.defaultZone;
  const definedTzids = new Set(root.getAllSubcomponents("vtimezone").map((z) => String(z.getFirstPropertyValue("tzid"))));
  const zoneLabels = defineZones(root, { ...options, floatingZone, warnings });
  const name = root.getFirstPropertyValue("x-wr-calname");
  return { root, name: typeof name === "string" && name.trim() !== "" ? name : undefined, floatingZone, zoneLabels, definedTzids, warnings };
}

function rootOf(jcal: unknown, label: string): IcalComponent {
  // Several VCALENDARs in one file (concatenated feeds) are read as one.
  const calendars = (Array.isArray(jcal) && Array.isArray(jcal[0]) ? jcal : [jcal]) as unknown[];
  const components = calendars.map((c) => new ICAL.Component(c as unknown[]));
  const first = components[0];
  if (first === undefined || components.some((c) => c.name !== "vcalendar")) throw HostProxyError.io(`${label}: not an iCalendar file (no VCALENDAR)`);
  if (components.length === 1) return first;
  const root = new ICAL.Component("vcalendar");
  // Copied first: moving a component out of its calendar shortens the list being walked.
  for (const c of components) for (const sub of [...c.getAllSubcomponents()]) root.addSubcomponent(sub);
  return root;
}

/** Labels every TZID and injects a VTIMEZONE for each undefined one that names a known zone. */
function defineZones(root: IcalComponent, o: ParseOptions & { floatingZone: string; warnings: CalendarWarning[] }): Map<string, string | undefined> {
  const labels = new Map<string, string | undefined>();
  for (const vtimezone of root.getAllSubcomponents("vtimezone")) {
    for (const observance of vtimezone.getAllSubcomponents()) onsetAsRdate(observance);
    const tzid = vtimezone.getFirstPropertyValue("tzid");
    const location = vtimezone.getFirstPropertyValue("x-lic-location");
    if (typeof tzid === "string") labels.set(tzid, ianaZoneOf(tzid, typeof location === "string" ? location : undefined));
  }
  for (const [tzid, uids] of usedTzids(root)) {
    if (labels.has(tzid)) continue;
    const known = ianaZoneOf(tzid);
    const guessed = known === undefined ? offsetOnlyZone(tzid) : undefined;
    const zone = known ?? guessed;
    labels.set(tzid, zone ?? o.floatingZone);
    if (guessed !== undefined) {
      const reason = `TZID ${JSON.stringify(tzid)} has no VTIMEZONE and names no place, only an offset: its times are read at that fixed offset (${guessed}), without daylight saving time`;
      for (const uid of uids) o.warnings.push({ uid, reason });
    }
    if (zone === undefined) {
      const reason = `TZID ${JSON.stringify(tzid)} has no VTIMEZONE and names no known zone: its times are read as floating, in ${o.floatingZone}, and may be hours off`;
      for (const uid of uids) o.warnings.push({ uid, reason });
      continue;
    }
    const lines = vtimezoneLines(zone, { ...o.years, tzid });
    const parsed = new ICAL.Component(ICAL.parse(`BEGIN:VCALENDAR\r\n${lines.join("\r\n")}\r\nEND:VCALENDAR\r\n`) as unknown[]);
    const vtimezone = parsed.getFirstSubcomponent("vtimezone");
    if (vtimezone !== null) root.addSubcomponent(vtimezone);
  }
  return labels;
}

/**
 * An observance's DTSTART is its first onset (RFC 5545 §3.6.5), but ical.js reads only the
 * RDATEs of an observance that has any: a file's VTIMEZONE whose DAYLIGHT starts at DTSTART and
 * recurs by RDATE would lose its first summer. The DTSTART is added among the RDATEs.
 */
function onsetAsRdate(observance: IcalComponent): void {
  const rdates = observance.getAllProperties("rdate");
  const dtstart = observance.getFirstPropertyValue("dtstart");
  if (rdates.length === 0 || !(dtstart instanceof ICAL.Time)) return;
  const listed = rdates.some((p) => (p.getValues() as unknown[]).some((v) => v instanceof ICAL.Time && v.compare(dtstart) === 0));
  if (!listed) observance.addPropertyWithValue("rdate", dtstart.clone());
}

/** Each TZID events use, with the UIDs of the events that use it. */
function usedTzids(root: IcalComponent): Map<string, Set<string>> {
  const used = new Map<string, Set<string>>();
  for (const vevent of root.getAllSubcomponents("vevent")) {
    const uid = String(vevent.getFirstPropertyValue("uid") ?? "").trim() || "(no UID)";
    for (const prop of vevent.getAllProperties()) {
      const tzid = prop.getFirstParameter("tzid");
      if (typeof tzid === "string" && tzid !== "") used.set(tzid, (used.get(tzid) ?? new Set()).add(uid));
    }
  }
  return used;
}
