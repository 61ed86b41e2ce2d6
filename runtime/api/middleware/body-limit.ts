import { bodyLimit } from "hono/body-limit";
import type { MiddlewareHandler } from "hono";
import { ApiError } from "./api-error.js";

export const DEFAULT_BODY_BYTES = 1024 * 1024;

export interface BodyLimitOptions {
  /** The limit of every request no `limitFor` answers for. Default 1 MiB. */
  readonly maxBytes?: number;
  /**
   * Another limit for some requests (a plugin upload takes 64 MiB), by method and router path;
   * undefined keeps `maxBytes`. Decided before any byte of the body is read.
   */
  readonly limitFor?: (method: string, path: string) => number | undefined;
}

/**
 * Refuses a request body over its limit with 413 before any handler reads it. Hono's
 * `bodyLimit` trusts a `Content-Length` (Node's parser already refuses a body longer than it
 * declares) and otherwise — `Transfer-Encoding: chunked` — counts the bytes as they arrive and
 * stops at the limit, so a chunked body is held in memory only up to the limit. The 413 asks
 * the client to close the connection (`Connection: close`): the rest of an oversized body is
 * then not read at all rather than read and thrown away.
 */
export function limitBody(options: BodyLimitOptions = {}): MiddlewareHandler {
  const maxBytes = checked(options.maxBytes ?? DEFAULT_BODY_BYTES);
  const byLimit = new Map<number, MiddlewareHandler>([[maxBytes, limitOf(maxBytes)]]);
  const limitFor = options.limitFor;
  if (limitFor === undefined) return byLimit.get(maxBytes)!;
  return (c, next) => {
    const limit = limitFor(c.req.method, c.req.path) ?? maxBytes;
    let middleware = byLimit.get(limit);
    if (middleware === undefined) byLimit.set(limit, (middleware = limitOf(checked(limit))));
    return middleware(c, next);
  };
}

function checked(maxBytes: number): number {
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) throw new RangeError(`limitBody: maxBytes ${maxBytes}: expected a whole number of bytes`);
  return maxBytes;
}

function limitOf(maxBytes: number): MiddlewareHandler {
  return bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw new ApiError("body_too_large", `request body: larger than the limit of ${maxBytes} bytes`, {
        status: 413,
        headers: { Connection: "close" },
      });
    },
  });
}
