/**
 * Calendar ids: the resource the policy decides on, and (for the .ics backend) part of a file
 * name. Ids are literals, never patterns or paths: the canonical form is the id itself, and
 * whatever could steer a path (`/`, `\`, `..`, a leading dot) or a glob (`*`) is refused, so
 * the string the grant matched is the string the backend opens.
 */
import { globMatches } from "../glob.js";
import { HostProxyError } from "../types.js";

export const MAX_CALENDAR_ID_LENGTH = 255;

// Google's ids: `primary`, `name@example.com`, `…@group.calendar.google.com`,
// `en.usa#holiday@group.v.calendar.google.com`, `i_71.23.40.78#sunrise@…`,
// `#contacts@group.v.calendar.google.com` (test/fixtures/calendar-api).
const CALENDAR_ID = /^[A-Za-z0-9_#][A-Za-z0-9_.@#+=-]*$/;

/** Why `id` is not a calendar id, or `undefined` when it is one. */
export function calendarIdProblem(id: string): string | undefined {
  if (id.length === 0) return "must not be empty";
  if (id.length > MAX_CALENDAR_ID_LENGTH) return `must be at most ${MAX_CALENDAR_ID_LENGTH} characters`;
  if (!CALENDAR_ID.test(id)) return "may hold only letters, digits and _ . @ # + = - and must start with a letter, digit, _ or #";
  if (id.includes("..")) return "must not contain ..";
  return undefined;
}

/** Returns `id` when it is a calendar id; throws `invalid-input` naming `where` otherwise. */
export function checkCalendarId(id: string, where: string): string {
  const problem = calendarIdProblem(id);
  if (problem !== undefined) throw HostProxyError.invalidInput(`${where}: calendarId ${JSON.stringify(id.slice(0, 80))} ${problem}`);
  return id;
}

/** Whether a granted pattern list (`primary`, `team-*@example.com`, `*`) covers `id`. */
export function calendarGranted(patterns: readonly string[], id: string): boolean {
  return patterns.some((pattern) => globMatches(pattern, id));
}
