import type { Explained } from "./_corpus.js";

/**
 * Hand-checked disagreements with node-ical, by file (docs/calendar-mail-conformance.md has the
 * same table). `referenceWrong`: node-ical lists what the file does not say; the backend is right.
 */
export const CALENDAR_EXPECTED: Record<string, Explained & { referenceWrong?: boolean }> = {
  "ical/google-birthday.ics": {
    reference: [],
    ours: ["PErson #2's birthday|2013-12-10"],
    why: "RDATE:20131210Z adds a second birthday; node-ical does not expand RDATE. Ours follows RFC 5545 §3.8.5.2.",
    referenceWrong: true,
  },
  "ical/zimbra-recur-instances.ics": {
    reference: [],
    ours: ["Crazy Event Thingy!|2012-11-05T18:00:00.000Z", "Crazy Event Thingy!|2012-11-10T18:00:00.000Z"],
    why: "RDATE occurrences and overrides moved to other days; node-ical expands neither RDATE nor moved RECURRENCE-ID overrides.",
    referenceWrong: true,
  },
  "ical-corpus/icalendar-america_new_york.ics": {
    reference: ["an event with a custom tz name|2014-08-29T08:00:00.000Z"],
    ours: ["an event with a custom tz name|2014-08-29T12:00:00.000Z"],
    why: "The event's TZID names the file's own VTIMEZONE `custom_America/New_York`; 08:00 there is 12:00Z. node-ical reads the unknown TZID as UTC.",
    referenceWrong: true,
  },
  "ical-corpus/icalendar-issue_1426.ics": {
    reference: [],
    ours: ["|1997-01-01T18:00:00.000Z", "|1997-09-01T18:00:00.000Z"],
    why: "RDATE;VALUE=PERIOD occurrences (each with its own end); node-ical ignores RDATE.",
    referenceWrong: true,
  },
  "ical-corpus/icalendar-issue_156_RDATE_with_PERIOD.ics": {
    reference: [],
    ours: ["RDATE period|1997-01-01T18:00:00.000Z"],
    why: "RDATE;VALUE=PERIOD occurrence; node-ical ignores RDATE.",
    referenceWrong: true,
  },
  "ical-corpus/icalendar-issue_156_RDATE_with_PERIOD_list.ics": {
    reference: [],
    ours: ["RDATE period|1997-01-01T18:00:00.000Z", "RDATE period|1997-01-09T18:00:00.000Z"],
    why: "Two RDATE;VALUE=PERIOD occurrences; node-ical ignores RDATE.",
    referenceWrong: true,
  },
  "ical-corpus/icalendar-period_with_timezone.ics": {
    reference: ["Test RDATE|2024-05-15T19:00:00.000Z"],
    ours: ["Test RDATE|2023-12-13T20:00:00.000Z"],
    why: "Ours lists the RDATE;VALUE=PERIOD occurrence of 2023-12-13 (node-ical ignores RDATE) but, as ical.js counts that RDATE towards COUNT=9, not the ninth rule occurrence of 2024-05-15: a known ical.js limit, warned in the result.",
  },
  "ical-corpus/icaljs-multiple_rrules.ics": {
    reference: ["sahaja <> frashed|2012-07-29T18:00:00.000Z"],
    ours: ["sahaja <> frashed|2012-03-26T18:00:00.000Z", "sahaja <> frashed|2012-04-02T18:00:00.000Z", "sahaja <> frashed|2012-04-09T18:00:00.000Z", "sahaja <> frashed|2012-04-16T18:00:00.000Z", "sahaja <> frashed|2012-04-23T18:00:00.000Z", "sahaja <> frashed|2012-04-30T18:00:00.000Z", "sahaja <> frashed|2012-05-07T18:00:00.000Z", "sahaja <> frashed|2012-05-14T18:00:00.000Z", "sahaja <> frashed|2012-05-21T18:00:00.000Z", "sahaja <> frashed|2012-05-28T18:00:00.000Z", "sahaja <> frashed|2012-06-04T18:00:00.000Z", "sahaja <> frashed|2012-06-11T18:00:00.000Z", "sahaja <> frashed|2012-06-18T18:00:00.000Z", "sahaja <> frashed|2012-06-25T18:00:00.000Z", "sahaja <> frashed|2012-07-02T18:00:00.000Z", "sahaja <> frashed|2012-07-09T18:00:00.000Z", "sahaja <> frashed|2012-07-16T18:00:00.000Z", "sahaja <> frashed|2012-07-23T18:00:00.000Z"],
    why: "Two RRULEs (RFC 2445 style): ours lists their union, node-ical only one rule; ical.js ends the union one occurrence early (2012-07-29), warned in the result.",
  },
  "ical-corpus/icaljs-recur_instances.ics": {
    reference: [],
    ours: ["Crazy Event Thingy!|2012-11-07T04:00:00.000Z", "Crazy Event Thingy!|2012-11-10T18:00:00.000Z", "Crazy Event Thingy!|2012-11-30T18:00:00.000Z"],
    why: "RDATEs and moved overrides; node-ical expands neither.",
    referenceWrong: true,
  },
  "ical-corpus/icaljs-recur_instances_finite.ics": {
    reference: [],
    ours: ["Crazy Event Thingy!|2012-11-05T18:00:00.000Z", "Crazy Event Thingy!|2012-11-10T18:00:00.000Z"],
    why: "RDATEs and moved overrides; node-ical expands neither.",
    referenceWrong: true,
  },
  "ical-corpus/icaljs-timezone_from_file.ics": {
    reference: ["A test event|2023-03-06T13:42:00.000Z"],
    ours: ["A test event|2023-03-06T21:23:00.000Z"],
    why: "TZID `Nowhere/Middle` is defined by the file's own VTIMEZONE (offset -07:41); node-ical reads it as UTC.",
    referenceWrong: true,
  },
  "ical-corpus/node-ical-floating-dtstart-custom-vtimezone.ics": {
    reference: ["Floating DTSTART with custom VTIMEZONE|2025-06-10T18:00:00.000Z"],
    ours: ["Floating DTSTART with custom VTIMEZONE|2025-06-10T14:00:00.000Z"],
    why: "A floating DTSTART (no TZID) in a file with one custom VTIMEZONE: RFC 5545 §3.3.5 makes it floating, read in the calendar's zone (UTC here); node-ical guesses the VTIMEZONE.",
    referenceWrong: true,
  },
  "ical-corpus/node-ical-mixed-timezone-handling.ics": {
    reference: ["No Timezone|2002-10-28T01:20:30.000Z"],
    ours: ["No Timezone|2002-10-28T09:20:30.000Z"],
    why: "A floating time in a calendar with X-WR-TIMEZONE US/Pacific: placed in that zone, as Google and Apple do; node-ical reads it as UTC.",
    referenceWrong: true,
  },
  "ical-corpus/node-ical-recurrence-sequence.ics": {
    reference: [],
    ours: ["Afternoon slot (SEQUENCE 4) - different time same day|2024-01-04T15:00:00.000Z", "Morning slot (SEQUENCE 2)|2024-01-04T09:00:00.000Z"],
    why: "Overrides whose RECURRENCE-ID is not on the rule (09:00 and 15:00 on a 10:00 series): listed as exceptions, as Google and Thunderbird show them; node-ical drops them.",
    referenceWrong: true,
  },
  "ical-corpus/node-ical-test_with_int_tzid.ics": {
    reference: ["Atelier groupes portail/Nuage|2024-01-08T11:00:00.000Z"],
    ours: ["Atelier groupes portail/Nuage|2024-01-08T10:00:00.000Z"],
    why: "TZID ` 1` names the file's VTIMEZONE (+01:00 in January): 11:00 is 10:00Z; node-ical is an hour off.",
    referenceWrong: true,
  },
};
