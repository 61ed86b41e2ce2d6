/**
 * iCalendar text for an added event: TEXT escaping (RFC 5545 §3.3.11), folding at 75 octets
 * without splitting a UTF-8 sequence (§3.1), times as `TZID=<zone>` wall times or UTC, and the
 * insertion of the new components before the file's last `END:VCALENDAR`, leaving every other
 * byte of the file as it was.
 */
import { HostProxyError } from "../../types.js";
import { formatDate, instantOf, wallAt } from "../time.js";
import type { CheckedNewEvent, EventTime } from "../types.js";

export const PRODID = "-//clawhive//calendar host proxy 0.1//EN";

const FOLD_OCTETS = 75;

/** The content lines (unfolded, no line ends) of the VEVENT for `event`. */
export function veventLines(event: CheckedNewEvent, o: { uid: string; now: Date }): string[] {
  const stamp = utcStamp(o.now.getTime());
  const lines = ["BEGIN:VEVENT", `UID:${escapeText(o.uid)}`, `DTSTAMP:${stamp}`, `CREATED:${stamp}`, `SUMMARY:${escapeText(event.summary)}`];
  lines.push(timeLine("DTSTART", event.start), timeLine("DTEND", event.end));
  if (event.location !== undefined && event.location !== "") lines.push(`LOCATION:${escapeText(event.location)}`);
  if (event.description !== undefined && event.description !== "") lines.push(`DESCRIPTION:${escapeText(event.description)}`);
  for (const address of event.attendees) lines.push(`ATTENDEE;ROLE=REQ-PARTICIPANT;PARTSTAT=NEEDS-ACTION:mailto:${address}`);
  lines.push("STATUS:CONFIRMED", "SEQUENCE:0", "TRANSP:OPAQUE", "END:VEVENT");
  return lines;
}

/** `DTSTART;VALUE=DATE:20261122`, `DTSTART;TZID=Europe/Zurich:20260115T090000`, or UTC. */
function timeLine(name: string, time: EventTime): string {
  if (time.date !== undefined) return `${name};VALUE=DATE:${time.date.replaceAll("-", "")}`;
  const at = instantOf(time.dateTime ?? "");
  if (at === undefined) throw HostProxyError.invalidInput(`calendar.addEvent: ${name} has no instant`);
  if (time.timeZone === undefined) return `${name}:${utcStamp(at)}`;
  return `${name};TZID=${time.timeZone}:${basic(wallAt(at, time.timeZone))}`;
}

/** A TEXT value: `\` `;` `,` escaped, line breaks as `\n`. */
export function escapeText(text: string): string {
  return text.replace(/[\\;,]/g, (c) => `\\${c}`).replace(/\r\n|\r|\n/g, "\\n");
}

/** One content line folded at 75 octets; continuation lines start with a space. */
export function foldLine(line: string, newline = "\r\n"): string {
  const parts: string[] = [];
  let current = "";
  let octets = 0;
  for (const char of line) {
    const size = Buffer.byteLength(char, "utf8");
    if (octets + size > FOLD_OCTETS) {
      parts.push(current);
      current = " ";
      octets = 1;
    }
    current += char;
    octets += size;
  }
  parts.push(current);
  return parts.join(newline);
}

/** A new, empty calendar's text. */
export function emptyCalendar(newline = "\r\n"): string {
  return ["BEGIN:VCALENDAR", "VERSION:2.0", `PRODID:${PRODID}`, "CALSCALE:GREGORIAN", "END:VCALENDAR", ""].join(newline);
}

/**
 * `existing` with `lines` (unfolded content lines) folded and inserted before its last
 * `END:VCALENDAR`, in the line-end style the file already uses. Bytes stay bytes: the file is
 * handled as latin1 so nothing outside the insertion is re-encoded.
 */
export function insertBeforeEnd(existing: Uint8Array, lines: string[], options: { label?: string } = {}): Buffer {
  const label = options.label ?? "calendar";
  const text = Buffer.from(existing).toString("latin1");
  const newline = text.includes("\r\n") || !text.includes("\n") ? "\r\n" : "\n";
  const ends = [...text.matchAll(/(^|\n)END:VCALENDAR[ \t]*(\r?\n|$)/gi)];
  const last = ends.at(-1);
  if (last === undefined) throw HostProxyError.io(`${label}: no END:VCALENDAR line; not writing to a file that is not iCalendar`);
  const at = last.index + (last[1] ?? "").length;
  const block = Buffer.from(lines.map((l) => foldLine(l, newline)).join(newline) + newline, "utf8").toString("latin1");
  return Buffer.from(text.slice(0, at) + block + text.slice(at), "latin1");
}

function utcStamp(epochMs: number): string {
  return `${basic(wallAt(epochMs, "UTC"))}Z`;
}

function basic(wall: { year: number; month: number; day: number; hour: number; minute: number; second: number }): string {
  const two = (n: number) => String(n).padStart(2, "0");
  return `${formatDate(wall).replaceAll("-", "")}T${two(wall.hour)}${two(wall.minute)}${two(wall.second)}`;
}
