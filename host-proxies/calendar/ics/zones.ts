/**
 * What IANA zone a TZID names. Files say it many ways: an IANA name (`Europe/Zurich`), a
 * Windows name from Outlook/Exchange (`W. Europe Standard Time`), a vendor path
 * (`/mozilla.org/20050126_1/Europe/London`, `/softwarestudio.org/Olson_20011030_5/America/New_York`),
 * or a private name whose VTIMEZONE carries `X-LIC-LOCATION`.
 *
 * Windows names are mapped with CLDR's windowsZones table (the `windows-iana` package) to the
 * zone CLDR lists first for the name (territory `001`), e.g. `W. Europe Standard Time` →
 * `Europe/Berlin`. That is the label an event reports; its times come from the file's own
 * VTIMEZONE when it has one (RFC 5545 §3.6.5 makes that definition authoritative).
 */
import { findIana } from "windows-iana";
import { canonicalZone } from "../time.js";
import { WINDOWS_DISPLAY_NAMES } from "./windows-display-names.js";

/** The IANA zone `tzid` names, or `undefined` when it names none we know. */
export function ianaZoneOf(tzid: string, licLocation?: string): string | undefined {
  const name = tzid.trim();
  const direct = canonicalZone(name);
  if (direct !== undefined) return direct;
  const windows = windowsZone(name) ?? displayNameZone(name) ?? fixedOffsetZone(name);
  if (windows !== undefined) return windows;
  const fromPath = zoneFromPath(name);
  if (fromPath !== undefined) return fromPath;
  return licLocation === undefined ? undefined : canonicalZone(licLocation.trim());
}

function windowsZone(name: string): string | undefined {
  let candidates: readonly string[];
  try {
    candidates = findIana(name);
  } catch {
    return undefined;
  }
  for (const candidate of candidates) {
    const zone = canonicalZone(candidate);
    if (zone !== undefined) return zone;
  }
  return undefined;
}

/**
 * `(UTC-05:00) Eastern Time (US & Canada)`, `(GMT+01.00) Amsterdam / Berlin / Bern / Rome`, or
 * the city list alone: the text after the offset, looked up among Windows display names.
 */
function displayNameZone(name: string): string | undefined {
  const text = name.replace(/^\((?:UTC|GMT)(?:\s*[+-]\d{1,2}(?:[:.]\d{2})?)?\)\s*/i, "").replace(/\s*\/\s*/g, ", ").replace(/\s+/g, " ").replace(/ and /gi, " & ").trim().toLowerCase();
  const windows = WINDOWS_DISPLAY_NAMES[text];
  return windows === undefined ? undefined : windowsZone(windows);
}

/**
 * The fixed zone of the offset a display name starts with (`(GMT +01:00)` with no place
 * named): a guess that ignores DST, so its caller warns. Whole hours only (`Etc/GMT∓N`).
 */
export function offsetOnlyZone(tzid: string): string | undefined {
  const match = /^\(?\s*(?:UTC|GMT)\s*([+-])(\d{1,2})(?:[:.]?(\d{2}))?\s*\)?/i.exec(tzid.trim());
  if (match === null) return undefined;
  return fixedOffsetZone(`UTC${match[1]}${match[2]}${match[3] === undefined ? "" : `:${match[3]}`}`);
}

/** `UTC+01`, `GMT-0500`, `UTC`: a whole-hour offset is the fixed zone `Etc/GMT∓N` (POSIX signs). */
function fixedOffsetZone(name: string): string | undefined {
  const match = /^(?:UTC|GMT)\s*(?:([+-])(\d{1,2})(?::?(\d{2}))?)?$/i.exec(name);
  if (match === null) return undefined;
  if (match[1] === undefined) return "UTC";
  const hours = Number(match[2]);
  if ((match[3] ?? "00") !== "00" || hours > 14) return undefined;
  if (hours === 0) return "UTC";
  return canonicalZone(`Etc/GMT${match[1] === "+" ? "-" : "+"}${hours}`);
}

/** `/vendor/version/Area/City` → `Area/City` (also `Area/Sub/City`), when that is a zone. */
function zoneFromPath(name: string): string | undefined {
  const segments = name.split("/").filter((s) => s !== "");
  if (segments.length < 2) return undefined;
  for (let take = Math.min(3, segments.length); take >= 1; take--) {
    const zone = canonicalZone(segments.slice(-take).join("/"));
    if (zone !== undefined) return zone;
  }
  return undefined;
}
