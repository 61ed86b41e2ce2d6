/**
 * Google Calendar (API v3) as a calendar backend: `calendarList.list`, `events.list` with
 * `singleEvents=true` and `orderBy=startTime` (Google expands recurrences and orders by start,
 * the same contract the .ics backend keeps), and `events.insert`. Pages are followed until
 * `maxResults` events are in hand or Google has no more.
 */
import type { CalendarBackend, CalendarEvent, CalendarInfo, CheckedNewEvent, EventQuery } from "../types.js";
import { CALENDAR_CAPABILITIES } from "../reasons.js";
import { GoogleApiClient } from "./client.js";
import type { GoogleClientOptions } from "./client.js";
import { calendarEventOf, calendarInfoOf, insertBodyOf } from "./wire.js";

export type GoogleCalendarBackendOptions = GoogleClientOptions;

/** Google's caps: 250 calendar list entries and 2500 events per page. */
const CALENDAR_PAGE = 250;
const EVENTS_PAGE = 2500;
/** Enough for any real answer; a server that keeps sending pages is stopped here. */
const MAX_PAGES = 50;

export class GoogleCalendarBackend implements CalendarBackend {
  readonly #client: GoogleApiClient;

  /** Throws `InvalidInputError` on a bad `baseUrl`. */
  constructor(options: GoogleCalendarBackendOptions) {
    this.#client = new GoogleApiClient(options);
  }

  async listCalendars(): Promise<CalendarInfo[]> {
    const infos: CalendarInfo[] = [];
    await this.#pages({ path: "users/me/calendarList", query: { maxResults: String(CALENDAR_PAGE) }, subject: "calendar list" }, (page) => {
      // The primary calendar answers to `primary` (Google's own alias), which is what grants name.
      for (const entry of items(page)) infos.push(primaryAsAlias(calendarInfoOf(entry)));
      return true;
    });
    return infos;
  }

  async listEvents(query: EventQuery): Promise<CalendarEvent[]> {
    const events: CalendarEvent[] = [];
    const base = { timeMin: query.timeMin, timeMax: query.timeMax, singleEvents: "true", orderBy: "startTime", q: query.query };
    await this.#pages({ path: `calendars/${encodeURIComponent(query.calendarId)}/events`, query: base, subject: `calendar ${query.calendarId}` }, (page, request) => {
      for (const item of items(page)) if (events.length < query.maxResults) events.push(calendarEventOf(item, query.calendarId));
      request.maxResults = String(Math.min(EVENTS_PAGE, query.maxResults - events.length));
      return events.length < query.maxResults;
    }, String(Math.min(EVENTS_PAGE, query.maxResults)));
    return events;
  }

  async addEvent(event: CheckedNewEvent): Promise<CalendarEvent> {
    const created = await this.#client.send({
      method: "POST",
      path: `calendars/${encodeURIComponent(event.calendarId)}/events`,
      body: insertBodyOf(event),
      capability: CALENDAR_CAPABILITIES.add,
      subject: `calendar ${event.calendarId}`,
    });
    return calendarEventOf(created, event.calendarId);
  }

  /**
   * GETs `path` page after page; `onPage` returns whether it wants more. A repeated page token
   * ends the walk too (a server loop must not become ours).
   */
  async #pages(
    o: { path: string; query: Record<string, string | undefined>; subject: string },
    onPage: (page: Record<string, unknown>, query: Record<string, string | undefined>) => boolean,
    firstMaxResults?: string,
  ): Promise<void> {
    const query: Record<string, string | undefined> = { ...o.query, ...(firstMaxResults === undefined ? {} : { maxResults: firstMaxResults }) };
    const seen = new Set<string>();
    for (let page = 0; page < MAX_PAGES; page++) {
      const answer = await this.#client.send({ method: "GET", path: o.path, query, capability: CALENDAR_CAPABILITIES.read, subject: o.subject });
      const token = answer.nextPageToken;
      if (!onPage(answer, query) || typeof token !== "string" || token === "" || seen.has(token)) return;
      seen.add(token);
      query.pageToken = token;
    }
  }
}

function primaryAsAlias(info: CalendarInfo): CalendarInfo {
  return info.primary ? { ...info, id: "primary" } : info;
}

function items(page: Record<string, unknown>): unknown[] {
  return Array.isArray(page.items) ? page.items : [];
}
