/** Events as the model sees them, written as JSON. */
import { JsonWriter } from "../../sdk-as/index";
import { Event, EventTime } from "../../sdk-as/host/calendar";

/** An event time as the model sees it: `{date}` for all-day, `{date_time, time_zone?}` otherwise. */
function writeTime(w: JsonWriter, t: EventTime): void {
  w.beginObject();
  const dateTime = t.dateTime;
  const date = t.date;
  if (dateTime != null) {
    w.key("date_time").string(dateTime);
    const zone = t.timeZone;
    if (zone != null) w.key("time_zone").string(zone);
  } else if (date != null) {
    w.key("date").string(date);
  }
  w.endObject();
}

/** An event as the model sees it: snake_case, absent fields left out. */
export function writeEvent(w: JsonWriter, e: Event): void {
  w.beginObject().key("id").string(e.id).key("calendar_id").string(e.calendarId).key("summary").string(e.summary);
  const description = e.description;
  if (description != null) w.key("description").string(description);
  const location = e.location;
  if (location != null) w.key("location").string(location);
  w.key("start");
  writeTime(w, e.start);
  w.key("end");
  writeTime(w, e.end);
  w.key("all_day").bool(e.allDay);
  const recurring = e.recurringEventId;
  if (recurring != null) w.key("recurring_event_id").string(recurring);
  w.key("attendees").beginArray();
  for (let i = 0; i < e.attendees.length; i++) w.string(unchecked(e.attendees[i]));
  w.endArray();
  const status = e.status;
  if (status != null) w.key("status").string(status);
  w.endObject();
}
