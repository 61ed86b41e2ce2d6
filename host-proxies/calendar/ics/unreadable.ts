/**
 * Why something could not be read, in words a caller can act on. ical.js's own errors name the
 * value ("invalid date-time value: \"xyz--T::\""); an engine error thrown from inside a library
 * (a TypeError reading a property that is not there) names only the library's internals, so a
 * shape that trips one is described by what the file holds instead: which property cannot be
 * decoded, or the caller's own words. No raw TypeError reaches a warning or a tool error.
 */
import ICAL from "ical.js";

/** Named here, not imported from read.ts, which imports this file. */
type IcalComponent = InstanceType<typeof ICAL.Component>;

/** ical.js's message when it explains itself; otherwise `fallback`. */
export function reasonOf(error: unknown, fallback: string): string {
  if (error instanceof Error && (error.constructor === Error || error.name === "ParserError") && error.message !== "") return error.message.slice(0, 160);
  return fallback;
}

/**
 * The first value of property `name`, or `undefined` when there is none or it does not decode
 * (`X-WR-TIMEZONE;VALUE=PERIOD:Europe/Berlin` makes ical.js throw on every read of it).
 */
export function readableValue(component: IcalComponent, name: string): unknown {
  try {
    return component.getFirstPropertyValue(name) ?? undefined;
  } catch {
    return undefined;
  }
}

/** What in `component` ical.js cannot read: the first property whose value does not decode, else DTSTART's kind. */
export function diagnose(component: IcalComponent, error: unknown): string {
  for (const prop of component.getAllProperties()) {
    try {
      prop.getValues();
    } catch (cause) {
      return `its ${prop.name.toUpperCase()} cannot be read (${reasonOf(cause, "an unexpected value")})`;
    }
  }
  const dtstart = component.getFirstPropertyValue("dtstart");
  if (dtstart !== null && !(dtstart instanceof ICAL.Time)) return "its DTSTART is not a DATE or DATE-TIME (RFC 5545 §3.8.2.4)";
  return reasonOf(error, "its properties have a shape this reader cannot follow");
}
