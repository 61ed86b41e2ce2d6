/**
 * Cursor pagination, one rule for every list: `?limit=` (default 100) and `?cursor=` (a previous
 * page's `next_cursor`, unchanged, with the same filters); `next_cursor` is null on the last page.
 * A cursor is the last item's sort key (keyset, not offset), so an item added while a client
 * pages is neither skipped nor repeated.
 */
import * as v from "valibot";
import { InvalidInputError } from "../../errors.js";
import { queryInt } from "./fields.js";

export const DEFAULT_PAGE = 100;
export const MAX_PAGE = 1000;

export const CURSOR = v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{1,400}$/, "expected the next_cursor of a previous page, unchanged"));

/** The query fields of a paged list (spread into its query schema). */
export const PAGE_QUERY = { limit: v.optional(queryInt(1, MAX_PAGE)), cursor: v.optional(CURSOR) };

export interface PageRequest {
  readonly limit?: number | undefined;
  readonly cursor?: string | undefined;
}

export interface Page<T> {
  readonly items: T[];
  readonly next_cursor: string | null;
}

export function encodeCursor(key: string): string {
  return Buffer.from(key, "utf8").toString("base64url");
}

/** The sort key a cursor holds; a cursor that is not one of ours is a 400 naming `query.cursor`. */
export function decodeCursor(cursor: string): string {
  const key = Buffer.from(cursor, "base64url").toString("utf8");
  if (key === "" || encodeCursor(key) !== cursor) throw new InvalidInputError("query.cursor: not a cursor this list gave; pass next_cursor back unchanged", { field: "query.cursor" });
  return key;
}

/**
 * One page of `items`, which are in the list's order: ascending `key` (`order: "asc"`) or
 * descending. Keys must be unique (end them with the item's id).
 */
export function pageOf<T>(items: readonly T[], key: (item: T) => string, request: PageRequest, order: "asc" | "desc" = "asc"): Page<T> {
  const limit = request.limit ?? DEFAULT_PAGE;
  const after = request.cursor === undefined ? undefined : decodeCursor(request.cursor);
  const rest = after === undefined ? items : items.filter((item) => (order === "asc" ? key(item) > after : key(item) < after));
  const pageItems = rest.slice(0, limit);
  const last = pageItems.at(-1);
  return { items: pageItems, next_cursor: rest.length > limit && last !== undefined ? encodeCursor(key(last)) : null };
}

/** A sort key for newest-first lists: the time, fixed-width so text order is time order, then the id. */
export function timeKey(at: number, id: string): string {
  return `${String(at).padStart(15, "0")}:${id}`;
}

/** The (time, id) a `timeKey` cursor holds, for a store query that starts after it. */
export function timeKeyOf(cursor: string): { at: number; id: string } {
  const key = decodeCursor(cursor);
  const match = /^(\d{15}):(.+)$/.exec(key);
  if (match === null) throw new InvalidInputError("query.cursor: not a cursor this list gave; pass next_cursor back unchanged", { field: "query.cursor" });
  return { at: Number(match[1]), id: match[2]! };
}
