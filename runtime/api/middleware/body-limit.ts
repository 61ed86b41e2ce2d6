import { bodyLimit } from "hono/body-limit";
import type { MiddlewareHandler } from "hono";
import { ApiError } from "./api-error.js";

export const DEFAULT_BODY_BYTES = 1024 * 1024;

/**
 * Refuses a request body over `maxBytes` with 413 before any handler reads it. Hono's
 * `bodyLimit` trusts a `Content-Length` (Node's parser already refuses a body longer than it
 * declares) and otherwise — `Transfer-Encoding: chunked` — counts the bytes as they arrive and
 * stops at the limit, so a chunked body is held in memory only up to `maxBytes`. The 413 asks
 * the client to close the connection (`Connection: close`): the rest of an oversized body is
 * then not read at all rather than read and thrown away.
 */
export function limitBody(options: { maxBytes?: number } = {}): MiddlewareHandler {
  const maxBytes = options.maxBytes ?? DEFAULT_BODY_BYTES;
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) throw new RangeError(`limitBody: maxBytes ${maxBytes}: expected a whole number of bytes`);
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
