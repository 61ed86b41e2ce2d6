/**
 * What a calendar backend could not read, or read only by guessing: each is told to the caller
 * (the tool result, the run's events), never dropped silently.
 */
export interface CalendarWarning {
  /** The UID of the event it concerns; absent for the file as a whole. */
  uid?: string | undefined;
  /** What was skipped, dropped or guessed, and why. */
  reason: string;
}

/** One line: `event "<uid>": <reason>`, or the reason alone for the file. */
export function formatWarning(warning: CalendarWarning): string {
  return warning.uid === undefined ? warning.reason : `event ${JSON.stringify(warning.uid)}: ${warning.reason}`;
}
