/**
 * One .ics file, parsed for listing: repaired (repair.ts), parsed by ical.js, and with a
 * VTIMEZONE injected for every TZID the file uses but does not define, so that ical.js (which
 * otherwise reads such times as floating) places them right. The file's own VTIMEZONEs win
 * (RFC 5545 §3.6.5); injected ones come from the IANA database (vtimezone.ts).
 */
import ICAL from "ical.js";
import { HostProxyError } from "../../types.js";
import { canonicalZone } from "../time.js";
import { mendOwnZone } from "./own-zones.js";
import { dropUnreadableLines, repairIcs } from "./repair.js";
import { readableValue, reasonOf } from "./unreadable.js";
import { vtimezoneLines } from "./vtimezone.js";
import type { CalendarWarning } from "./warnings.js";
import { ZoneDisagreements } from "./zone-check.js";
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
  /** Listed times where a VTIMEZONE of the file disagrees with the IANA zone of its name. */
  zoneNotes: ZoneDisagreements;
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
      throw HostProxyError.io(`${options.label}: not a readable iCalendar file: ${reasonOf(error, "its structure cannot be followed")}`, error);
    }
  }
  const root = rootOf(jcal, options.label);
  const warnings = [...repaired.warnings];
  const wrZone = readableValue(root, "x-wr-timezone");
  const floatingZone = (typeof wrZone === "string" ? canonicalZone(wrZone.trim()) : undefined) ?? options.defaultZone;
  const { labels: zoneLabels, defined: definedTzids } = defineZones(root, { ...options, floatingZone, warnings });
  const name = readableValue(root, "x-wr-calname");
  return { root, name: typeof name === "string" && name.trim() !== "" ? name : undefined, floatingZone, zoneLabels, definedTzids, warnings, zoneNotes: new ZoneDisagreements() };
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

/**
 * Labels every TZID and injects a VTIMEZONE for each undefined one that names a known zone; a
 * VTIMEZONE of the file that cannot be used is dropped (with a warning), and its TZID read as if
 * the file did not define it. `defined`: the TZIDs the file defines itself, usably.
 */
function defineZones(root: IcalComponent, o: ParseOptions & { floatingZone: string; warnings: CalendarWarning[] }): { labels: Map<string, string | undefined>; defined: Set<string> } {
  const labels = new Map<string, string | undefined>();
  const defined = new Set<string>();
  for (const vtimezone of [...root.getAllSubcomponents("vtimezone")]) {
    const problem = mendOwnZone(vtimezone);
    const tzid = readableValue(vtimezone, "tzid");
    if (problem !== undefined) {
      root.removeSubcomponent(vtimezone);
      const named = typeof tzid === "string" && tzid.trim() !== "" ? ` ${JSON.stringify(tzid)}` : "";
      o.warnings.push({ reason: `dropped the VTIMEZONE${named}: ${problem}; times that name it are read as if the file did not define it` });
      continue;
    }
    if (typeof tzid === "string") defined.add(tzid);
    const location = readableValue(vtimezone, "x-lic-location");
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
  return { labels, defined };
}

/** Each TZID events use, with the UIDs of the events that use it. */
function usedTzids(root: IcalComponent): Map<string, Set<string>> {
  const used = new Map<string, Set<string>>();
  for (const vevent of root.getAllSubcomponents("vevent")) {
    const uid = String(readableValue(vevent, "uid") ?? "").trim() || "(no UID)";
    for (const prop of vevent.getAllProperties()) {
      const tzid = prop.getFirstParameter("tzid");
      if (typeof tzid === "string" && tzid !== "") used.set(tzid, (used.get(tzid) ?? new Set()).add(uid));
    }
  }
  return used;
}
