/**
 * `v.strictObject` with messages people can act on: an unknown key lists the known ones
 * (typos are the usual cause), a missing key says which.
 */
import * as v from "valibot";

export function strictObject<const E extends v.ObjectEntries>(entries: E, what = "key") {
  const known = Object.keys(entries).join(", ");
  return v.strictObject(entries, (issue) => {
    if (issue.expected === "never") return `unknown ${what} ${issue.received}; expected one of: ${known}`;
    if (issue.received === "undefined" && issue.expected?.startsWith('"')) return `required ${what} is missing`;
    return `expected an object, got ${issue.received}`;
  });
}
