/**
 * What the fake Google Calendar holds and how its three methods answer: the recorded
 * `calendarList.list` entries (test/fixtures/calendar-api), events per calendar, and
 * `events.list` (singleEvents view: window, `q`, `orderBy=startTime`, paging) and
 * `events.insert` as Google documents them. All-day dates are placed in UTC.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { fixturePath } from "./_fixtures.js";

type Json = Record<string, unknown>;

export interface Answer {
  status: number;
  body: Json;
}

/** A weekly series seeded as Google stores its instances (`singleEvents=true` view). */
export interface SeriesSeed {
  summary: string;
  /** RFC 3339 with offset, one per instance. */
  starts: string[];
  minutes: number;
  timeZone: string;
}

export function googleError(status: number, reason: string, message: string): Answer {
  return { status, body: { error: { errors: [{ domain: "global", reason, message }], code: status, message } } };
}

export class FakeCalendarData {
  readonly entries: Json[];
  readonly events = new Map<string, Json[]>();
  readonly primaryId: string;
  pageSize = 1000;

  constructor() {
    const recorded = JSON.parse(readFileSync(fixturePath("calendar-api/calendar-v3-calendarList-list.json"), "utf8")) as { items: Json[] };
    this.entries = recorded.items;
    this.primaryId = String(this.entries.find((e) => e.primary === true)?.id);
    for (const entry of this.entries) this.events.set(String(entry.id), []);
  }

  /** `primary` → the primary calendar's id; an unknown id → undefined. */
  resolve(calendarId: string): string | undefined {
    const id = calendarId === "primary" ? this.primaryId : calendarId;
    return this.events.has(id) ? id : undefined;
  }

  calendarList(query: URLSearchParams): Answer {
    const size = Math.min(Number(query.get("maxResults") ?? 100), 250, this.pageSize);
    const { items, next } = page(this.entries, query.get("pageToken"), size);
    const body: Json = { kind: "calendar#calendarList", etag: '"p33c"', items };
    if (next !== undefined) body.nextPageToken = next;
    else body.nextSyncToken = "sync-token";
    return { status: 200, body };
  }

  listEvents(calendarId: string, query: URLSearchParams): Answer {
    const id = this.resolve(calendarId);
    if (id === undefined) return googleError(404, "notFound", "Not Found");
    if (query.get("orderBy") === "startTime" && query.get("singleEvents") !== "true") {
      return googleError(400, "invalid", "The requested ordering is not available for the particular query.");
    }
    const min = query.has("timeMin") ? Date.parse(query.get("timeMin") ?? "") : -Infinity;
    const max = query.has("timeMax") ? Date.parse(query.get("timeMax") ?? "") : Infinity;
    const terms = (query.get("q") ?? "").toLowerCase().split(/\s+/).filter((t) => t !== "");
    const matching = (this.events.get(id) ?? [])
      .filter((e) => e.status !== "cancelled" && startOf(e) < max && (endOf(e) > min || (endOf(e) === startOf(e) && startOf(e) >= min)))
      .filter((e) => terms.every((term) => searchText(e).includes(term)))
      .sort((a, b) => startOf(a) - startOf(b) || endOf(a) - endOf(b) || String(a.id).localeCompare(String(b.id)));
    const size = Math.min(Number(query.get("maxResults") ?? 250), 2500, this.pageSize);
    const { items, next } = page(matching, query.get("pageToken"), size);
    const body: Json = {
      kind: "calendar#events", etag: '"e7a9"', summary: id, updated: new Date().toISOString(), timeZone: "UTC",
      accessRole: "owner", defaultReminders: [], items,
    };
    if (next !== undefined) body.nextPageToken = next;
    else body.nextSyncToken = "sync-token";
    return { status: 200, body };
  }

  insert(calendarId: string, request: Json): Answer {
    const id = this.resolve(calendarId);
    if (id === undefined) return googleError(404, "notFound", "Not Found");
    const eventId = base32hex(26);
    const now = new Date().toISOString();
    const event: Json = {
      kind: "calendar#event", etag: `"${Date.now()}"`, id: eventId, status: "confirmed",
      htmlLink: `https://www.google.com/calendar/event?eid=${eventId}`, created: now, updated: now,
      summary: request.summary, creator: { email: this.primaryId, self: true }, organizer: { email: this.primaryId, self: true },
      start: request.start, end: request.end, iCalUID: `${eventId}@google.com`, sequence: 0, reminders: { useDefault: true },
    };
    for (const field of ["description", "location"]) if (request[field] !== undefined) event[field] = request[field];
    if (Array.isArray(request.attendees)) event.attendees = request.attendees.map((a: Json) => ({ email: a.email, responseStatus: "needsAction" }));
    this.events.get(id)?.push(event);
    return { status: 200, body: event };
  }

  /** Stores a series' instances; returns the series id. */
  seedSeries(calendarId: string, seed: SeriesSeed): string {
    const id = this.resolve(calendarId);
    if (id === undefined) throw new Error(`fake: no calendar ${calendarId}`);
    const seriesId = base32hex(26);
    for (const start of seed.starts) {
      const end = new Date(Date.parse(start) + seed.minutes * 60_000).toISOString().replace(".000Z", "Z");
      const key = new Date(Date.parse(start)).toISOString().replace(/[-:]|\.\d{3}/g, "");
      this.events.get(id)?.push({
        kind: "calendar#event", id: `${seriesId}_${key}`, status: "confirmed", summary: seed.summary,
        start: { dateTime: start, timeZone: seed.timeZone }, end: { dateTime: end, timeZone: seed.timeZone },
        recurringEventId: seriesId, originalStartTime: { dateTime: start, timeZone: seed.timeZone },
        iCalUID: `${seriesId}@google.com`, sequence: 0,
      });
    }
    return seriesId;
  }
}

function page<T>(all: T[], token: string | null, size: number): { items: T[]; next: string | undefined } {
  const offset = token === null ? 0 : Number(Buffer.from(token, "base64url").toString("utf8").replace("offset:", ""));
  const items = all.slice(offset, offset + size);
  const rest = offset + size < all.length;
  return { items, next: rest ? Buffer.from(`offset:${offset + size}`).toString("base64url") : undefined };
}

function startOf(event: Json): number {
  return instant(event.start);
}

function endOf(event: Json): number {
  return instant(event.end);
}

function instant(time: unknown): number {
  const t = time as { date?: string; dateTime?: string };
  return t.date !== undefined ? Date.parse(`${t.date}T00:00:00Z`) : Date.parse(t.dateTime ?? "");
}

function searchText(event: Json): string {
  const attendees = Array.isArray(event.attendees) ? event.attendees.map((a: Json) => String(a.email)) : [];
  return [event.summary, event.description, event.location, ...attendees].filter((x) => typeof x === "string").join("\n").toLowerCase();
}

/** Google event ids use base32hex: a–v and 0–9. */
function base32hex(length: number): string {
  const alphabet = "0123456789abcdefghijklmnopqrstuv";
  return [...randomBytes(length)].map((b) => alphabet[b % 32]).join("");
}
