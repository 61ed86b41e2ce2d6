/**
 * Where a file's own VTIMEZONE and the IANA zone of the same name part ways. RFC 5545 §3.6.5
 * makes the file's definition the one its times are read by, and clients that honour it (Apple,
 * Thunderbird, DAVx5) show the clock time as written; clients that take the TZID as an IANA name
 * (Google) show the IANA zone's. An export with an old or cut-down VTIMEZONE (Apple iCal's
 * pre-2007 US rules, a CalDAV server's truncated zones) or a private definition under an IANA
 * name therefore reads an hour or more apart in two programs: each listed time where the two
 * disagree is noted here, and told once per TZID.
 */
import { formatDate, wallAsUtc } from "../time.js";
import type { WallTime } from "../time.js";
import type { CalendarWarning } from "./warnings.js";

interface Disagreement {
  zone: string;
  uid: string;
  wall: WallTime;
  fileOffset: number;
  zoneOffset: number;
  count: number;
}

export class ZoneDisagreements {
  readonly #byTzid = new Map<string, Disagreement>();

  /** One listed time whose offset in the file (`fileOffset`) is not the IANA zone's (`zoneOffset`). */
  note(tzid: string, seen: Omit<Disagreement, "count">): void {
    const known = this.#byTzid.get(tzid);
    if (known === undefined) this.#byTzid.set(tzid, { ...seen, count: 1 });
    else known.count++;
  }

  /** One warning per TZID, naming the first event it concerns and how many listed times in all. */
  warnings(): CalendarWarning[] {
    return [...this.#byTzid].map(([tzid, d]) => {
      const wall = formatWall(d.wall);
      const asUtc = (offset: number) => new Date(wallAsUtc(d.wall) - offset * 1000).toISOString().replace(/\.000Z$/, "Z");
      const more = d.count > 1 ? `; ${d.count} listed times in all differ` : "";
      const reason =
        `TZID ${JSON.stringify(tzid)}: the file's own VTIMEZONE puts ${wall} at UTC${formatOffset(d.fileOffset)} (${asUtc(d.fileOffset)}), ` +
        `the IANA zone ${d.zone} at UTC${formatOffset(d.zoneOffset)} (${asUtc(d.zoneOffset)}); it is listed as the file defines it ` +
        `(RFC 5545 §3.6.5), and a client that reads it in the IANA zone shows it ${formatGap(d.zoneOffset - d.fileOffset)} apart${more}`;
      return { uid: d.uid, reason };
    });
  }
}

function formatWall(w: WallTime): string {
  return `${formatDate(w)}T${two(w.hour)}:${two(w.minute)}:${two(w.second)}`;
}

function formatOffset(seconds: number): string {
  const abs = Math.abs(seconds);
  const s = abs % 60;
  return `${seconds < 0 ? "-" : "+"}${two(Math.floor(abs / 3600))}:${two(Math.floor(abs / 60) % 60)}${s === 0 ? "" : `:${two(s)}`}`;
}

/** `1 h`, `30 min`, `1 h 30 min`. */
function formatGap(seconds: number): string {
  const abs = Math.abs(seconds);
  const hours = Math.floor(abs / 3600);
  const minutes = Math.round((abs % 3600) / 60);
  return [hours > 0 ? `${hours} h` : "", minutes > 0 ? `${minutes} min` : ""].filter(Boolean).join(" ") || `${abs} s`;
}

function two(n: number): string {
  return String(n).padStart(2, "0");
}
