/** Schemas several routes share: names and ids in paths, numbers and times in queries. */
import * as v from "valibot";
import { NAME_PATTERN as SECRET_NAME_PATTERN } from "../../secrets/index.js";
export { ID, NAME } from "../middleware/params.js";

/** A secret's name: unlike other names it may hold `_` (`openai_api_key`). */
export const SECRET_NAME = v.pipe(
  v.string(),
  v.regex(SECRET_NAME_PATTERN, "expected a secret name: a-z, 0-9, _ and -, starting with a letter, at most 64 characters"),
);

/** A whole number from a query string, `min` to `max`. */
export function queryInt(min: number, max: number) {
  return v.pipe(
    v.string(),
    v.regex(/^\d{1,9}$/, `expected a whole number from ${min} to ${max}`),
    v.transform(Number),
    v.number(),
    v.minValue(min, `expected a whole number from ${min} to ${max}`),
    v.maxValue(max, `expected a whole number from ${min} to ${max}`),
  );
}

/** `true` or `false` in a query string. */
export const QUERY_BOOLEAN = v.pipe(v.picklist(["true", "false"], "expected true or false"), v.transform((s) => s === "true"));

const ISO_TIME = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/;

/**
 * A moment in a query string: epoch milliseconds, or an ISO 8601 date or date-time with its
 * offset (`2026-01-31`, `2026-01-31T09:00:00Z`). A date-time without offset is refused: the
 * server's zone is not the caller's. The calendar day is checked (`Date.parse` takes 02-30).
 */
export const QUERY_TIME = v.pipe(
  v.string(),
  v.check((s) => /^\d{1,15}$/.test(s) || (ISO_TIME.test(s) && validDay(s)), "expected epoch milliseconds or an ISO 8601 date or date-time with offset, e.g. 2026-01-31T09:00:00Z"),
  v.transform((s) => (/^\d+$/.test(s) ? Number(s) : Date.parse(s))),
);

function validDay(text: string): boolean {
  const [y, m, d] = [Number(text.slice(0, 4)), Number(text.slice(5, 7)), Number(text.slice(8, 10))];
  const day = new Date(Date.UTC(y, m - 1, d));
  return day.getUTCFullYear() === y && day.getUTCMonth() === m - 1 && day.getUTCDate() === d && Number.isFinite(Date.parse(text));
}

/**
 * A comma-separated list from a query string, each item one of `allowed`. Checked as one string
 * (the field is `query.status`, not an index into a list the caller never sent).
 */
export function queryList<T extends string>(allowed: readonly T[]) {
  return v.pipe(
    v.string(),
    v.check((s) => s.split(",").every((item) => (allowed as readonly string[]).includes(item.trim())), `expected one or more of ${allowed.join(", ")}, separated by commas`),
    v.transform((s) => s.split(",").map((item) => item.trim() as T)),
  );
}
