/**
 * The response schemas of the API: the views in routes/ are typed by them (`reply`) and the
 * OpenAPI document describes every success answer from them, so a body and its document cannot
 * drift. Names are snake_case; times are ISO 8601 text unless a field says `_ms`-style epoch.
 */
import * as v from "valibot";

export const ISO_TIME = v.pipe(v.string(), v.description("ISO 8601 date-time (UTC)"));
export const EPOCH_MS = v.pipe(v.number(), v.description("milliseconds since the epoch"));
/** Any JSON value: a tool's input or output, a manifest, a JSON Schema; the API does not restate its shape. */
export const ANY_JSON = v.pipe(v.unknown(), v.description("any JSON value"));
export const JSON_OBJECT = v.record(v.string(), v.unknown());

/** Every list answers a page: at most `limit` items; `next_cursor` (null on the last page) goes back as `cursor`. */
export const NEXT_CURSOR = v.pipe(v.nullable(v.string()), v.description("pass as ?cursor= for the next page, with the same filters; null on the last page"));

export const DenialSchema = v.strictObject({
  capability: v.string(),
  reason: v.pipe(v.string(), v.description("a stable reason code, e.g. not_granted, outside-mount")),
  message: v.string(),
});

export const IssueSchema = v.strictObject({ path: v.string(), message: v.string() });

export const RiskSchema = v.picklist(["safe", "guarded", "unsafe"]);
