import type { Event, EventTime } from "clawhive:host/calendar@0.1.1";

/** An event time as the model sees it: `{date}` for all-day, `{date_time, time_zone?}` otherwise. */
export type EventTimeOutput = { date: string } | { date_time: string; time_zone?: string } | Record<string, never>;

export function eventTimeOutput(t: EventTime): EventTimeOutput {
  if (t.dateTime !== undefined) return { date_time: t.dateTime, ...(t.timeZone === undefined ? {} : { time_zone: t.timeZone }) };
  if (t.date !== undefined) return { date: t.date };
  return {};
}

/** An event as the model sees it: snake_case, absent fields left out. */
export function eventOutput(e: Event): Record<string, unknown> {
  return {
    id: e.id,
    calendar_id: e.calendarId,
    summary: e.summary,
    ...(e.description === undefined ? {} : { description: e.description }),
    ...(e.location === undefined ? {} : { location: e.location }),
    start: eventTimeOutput(e.start),
    end: eventTimeOutput(e.end),
    all_day: e.allDay,
    ...(e.recurringEventId === undefined ? {} : { recurring_event_id: e.recurringEventId }),
    attendees: [...e.attendees],
    ...(e.status === undefined ? {} : { status: e.status }),
  };
}
