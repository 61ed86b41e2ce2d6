/**
 * A VTIMEZONE for an IANA zone, built from the platform's tz database (`Intl`). It is written
 * next to an added event (RFC 5545 §3.6.5: every TZID needs its VTIMEZONE) and injected when a
 * file names a zone it does not define (Apple and ownCloud exports do that).
 *
 * The offset changes between `fromYear` and `toYear` are found by sampling every day and
 * bisecting to the second. When the last years follow yearly "nth weekday of a month" rules
 * (as every zone with daylight time does today), those become RRULE observances, so the
 * definition stays right for later years too; earlier changes are listed as RDATEs. Before the
 * first change, the offset of `fromYear` holds (an observance from 1601, as Exchange writes).
 */
import { formatDate, offsetAt, wallAt } from "../time.js";
import type { WallTime } from "../time.js";

interface Change {
  /** UTC instant of the change, ms. */
  at: number;
  from: number;
  to: number;
}

interface YearlyRule {
  month: number;
  /** 0 = Sunday. */
  weekday: number;
  /** 1–4 for the nth such weekday of the month, -1 for the last; or… */
  ordinal?: number;
  /** …the first such weekday on or after this day (tz's `Sun>=2`, as Chile uses). */
  onOrAfter?: number;
  from: number;
  to: number;
  /** Seconds after local midnight (in the `from` offset). */
  time: number;
}

const DAY_MS = 86_400_000;
/**
 * Years scanned past `toYear` (the database's future is its current rules): enough for a
 * weekday to have fallen on every day of a week, so "Sun>=2" and "1st Sunday" part ways.
 */
const RULE_YEARS = 12;
const cache = new Map<string, string[]>();
const WEEKDAYS = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"];

export interface VtimezoneOptions {
  /** The TZID to write; default the zone's name. */
  tzid?: string;
  fromYear: number;
  toYear: number;
}

/** The content lines (without line ends) of a VTIMEZONE for IANA `zone`. */
export function vtimezoneLines(zone: string, options: VtimezoneOptions): string[] {
  const range = { fromYear: options.fromYear, toYear: options.toYear };
  const tzid = options.tzid ?? zone;
  const key = `${tzid}\n${zone}\n${range.fromYear}\n${range.toYear}`;
  let lines = cache.get(key);
  if (lines === undefined) {
    lines = build(tzid, zone, range);
    // A cache of pure results, bounded so a stream of odd TZIDs cannot grow it.
    if (cache.size > 200) cache.clear();
    cache.set(key, lines);
  }
  return [...lines];
}

function build(tzid: string, zone: string, range: { fromYear: number; toYear: number }): string[] {
  const start = Date.UTC(range.fromYear, 0, 1);
  const changes = offsetChanges(zone, start, Date.UTC(Math.max(range.toYear, range.fromYear) + RULE_YEARS, 0, 1));
  const lines = ["BEGIN:VTIMEZONE", `TZID:${tzid}`, `X-LIC-LOCATION:${zone}`];
  const first = offsetAt(start, zone);
  lines.push(...observance("STANDARD", { onset: "16010101T000000", from: first, to: first }));
  const { rules, listed } = splitRules(changes);
  for (const group of groupBy(listed, (c) => `${c.from}/${c.to}`)) {
    const onsets = group.map(onsetOf);
    lines.push(...observance(kind(group[0] as Change, zone), { onset: onsets[0] as string, from: group[0]!.from, to: group[0]!.to, rdates: onsets }));
  }
  for (const { rule, first: change } of rules) {
    lines.push(...observance(kind(change, zone), { onset: onsetOf(change), from: rule.from, to: rule.to, rrule: rruleOf(rule) }));
  }
  lines.push("END:VTIMEZONE");
  return lines;
}

function rruleOf(rule: YearlyRule): string {
  const weekday = WEEKDAYS[rule.weekday] as string;
  if (rule.onOrAfter === undefined) return `FREQ=YEARLY;BYMONTH=${rule.month};BYDAY=${rule.ordinal}${weekday}`;
  const days = Array.from({ length: 7 }, (_, i) => rule.onOrAfter! + i).join(",");
  return `FREQ=YEARLY;BYMONTH=${rule.month};BYMONTHDAY=${days};BYDAY=${weekday}`;
}

/** Every change of `zone`'s offset in [fromMs, toMs). */
function offsetChanges(zone: string, fromMs: number, toMs: number): Change[] {
  const changes: Change[] = [];
  let previous = offsetAt(fromMs, zone);
  for (let t = fromMs + DAY_MS; t < toMs; t += DAY_MS) {
    const offset = offsetAt(t, zone);
    if (offset === previous) continue;
    let lo = t - DAY_MS;
    let hi = t;
    while (hi - lo > 1000) {
      const mid = Math.floor((lo + hi) / 2000) * 1000;
      if (offsetAt(mid, zone) === previous) lo = mid;
      else hi = mid;
    }
    changes.push({ at: hi, from: previous, to: offset });
    previous = offset;
  }
  return changes;
}

/**
 * Splits the changes into a yearly-rule tail and the rest. The tail is the longest run at the
 * end whose changes are each produced by one of (at most) two yearly rules, every year.
 */
function splitRules(changes: Change[]): { rules: Array<{ rule: YearlyRule; first: Change }>; listed: Change[] } {
  const lastTwo = changes.slice(-2);
  const candidates = lastTwo.map((c) => bestRule(rulesOf(c).filter((rule) => matchesBackTo(rule, changes, 2)), changes));
  if (lastTwo.length < 2 || candidates.some((r) => r === undefined)) return { rules: [], listed: changes };
  const rules = candidates as YearlyRule[];
  let cut = changes.length;
  while (cut > 0 && rules.some((r) => ruleMatches(r, changes[cut - 1] as Change))) cut--;
  // Each rule must own the same number of yearly changes in the tail, or a year is missing one.
  const tail = changes.slice(cut);
  const owned = rules.map((r) => tail.filter((c) => ruleMatches(r, c)));
  if (owned[0]!.length < 2 || owned[0]!.length !== owned[1]!.length) return { rules: [], listed: changes };
  return { rules: rules.map((rule, i) => ({ rule, first: owned[i]![0] as Change })), listed: changes.slice(0, cut) };
}

/**
 * A change on, say, March 27 fits "4th Sunday", "last Sunday" and "Sunday on or after the
 * 21st…27th"; the rule that explains the most changes wins, and on a tie the plainest form
 * ("last", then "nth", then "on or after").
 */
function bestRule(rules: YearlyRule[], changes: Change[]): YearlyRule | undefined {
  const plain = (r: YearlyRule) => (r.ordinal === -1 ? 2 : r.ordinal !== undefined ? 1 : 0);
  const score = (r: YearlyRule) => changes.filter((c) => ruleMatches(r, c)).length * 4 + plain(r);
  return rules.sort((a, b) => score(b) - score(a))[0];
}

/** Whether `rule` produced `count` changes among the last ones, one a year, in consecutive years. */
function matchesBackTo(rule: YearlyRule, changes: Change[], count: number): boolean {
  const own = changes.filter((c) => ruleMatches(rule, c)).slice(-count);
  if (own.length < count) return false;
  return own.every((c, i) => i === 0 || new Date(c.at).getUTCFullYear() === new Date(own[i - 1]!.at).getUTCFullYear() + 1);
}

function rulesOf(change: Change): YearlyRule[] {
  const wall = onsetWall(change);
  const weekday = new Date(Date.UTC(wall.year, wall.month - 1, wall.day)).getUTCDay();
  const base = { month: wall.month, weekday, from: change.from, to: change.to, time: wall.hour * 3600 + wall.minute * 60 + wall.second };
  const nth = Math.ceil(wall.day / 7);
  const days = daysIn(wall.year, wall.month);
  const rules: YearlyRule[] = nth <= 4 ? [{ ...base, ordinal: nth }] : [];
  if (wall.day + 7 > days) rules.push({ ...base, ordinal: -1 });
  for (let from = Math.max(1, wall.day - 6); from <= wall.day && from + 6 <= 28; from++) rules.push({ ...base, onOrAfter: from });
  return rules;
}

function ruleMatches(rule: YearlyRule, change: Change): boolean {
  const wall = onsetWall(change);
  if (change.from !== rule.from || change.to !== rule.to || wall.month !== rule.month) return false;
  if (wall.hour * 3600 + wall.minute * 60 + wall.second !== rule.time) return false;
  return wall.day === ruleDay(rule, wall.year);
}

function ruleDay(rule: YearlyRule, year: number): number {
  const weekdayOf = (day: number) => new Date(Date.UTC(year, rule.month - 1, day)).getUTCDay();
  if (rule.onOrAfter !== undefined) return rule.onOrAfter + ((rule.weekday - weekdayOf(rule.onOrAfter) + 7) % 7);
  const firstMatch = 1 + ((rule.weekday - weekdayOf(1) + 7) % 7);
  if ((rule.ordinal ?? 1) > 0) return firstMatch + 7 * ((rule.ordinal ?? 1) - 1);
  return firstMatch + 7 * Math.floor((daysIn(year, rule.month) - firstMatch) / 7);
}

function observance(name: string, o: { onset: string; from: number; to: number; rrule?: string; rdates?: string[] }): string[] {
  const lines = [`BEGIN:${name}`, `DTSTART:${o.onset}`, `TZOFFSETFROM:${utcOffset(o.from)}`, `TZOFFSETTO:${utcOffset(o.to)}`];
  if (o.rrule !== undefined) lines.push(`RRULE:${o.rrule}`);
  // ical.js counts only RDATEs (not DTSTART) as onsets when an observance has RDATEs: list all.
  for (const rdate of o.rdates ?? []) lines.push(`RDATE:${rdate}`);
  lines.push(`END:${name}`);
  return lines;
}

/** DAYLIGHT when the new offset is above the zone's lower offset of that year. */
function kind(change: Change, zone: string): "DAYLIGHT" | "STANDARD" {
  const year = new Date(change.at).getUTCFullYear();
  const standard = Math.min(offsetAt(Date.UTC(year, 0, 1), zone), offsetAt(Date.UTC(year, 6, 1), zone));
  return change.to > standard ? "DAYLIGHT" : "STANDARD";
}

/** The local time a change happens at, read in the offset before it (RFC 5545 §3.6.5). */
function onsetWall(change: Change): WallTime {
  return wallAt(change.at + change.from * 1000, "UTC");
}

function onsetOf(change: Change): string {
  const w = onsetWall(change);
  return `${formatDate(w).replaceAll("-", "")}T${two(w.hour)}${two(w.minute)}${two(w.second)}`;
}

function utcOffset(seconds: number): string {
  const abs = Math.abs(seconds);
  const s = abs % 60;
  return `${seconds < 0 ? "-" : "+"}${two(Math.floor(abs / 3600))}${two(Math.floor(abs / 60) % 60)}${s === 0 ? "" : two(s)}`;
}

function groupBy<T>(items: T[], key: (item: T) => string): T[][] {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return [...groups.values()];
}

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function two(n: number): string {
  return String(n).padStart(2, "0");
}
