import { createHash, timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import { errorBody } from "./api-error.js";

/** Shortest metrics token accepted: a guessable one would only look like protection. */
export const MIN_METRICS_TOKEN_LENGTH = 16;

function digest(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

/**
 * `GET /metrics` behind one bearer token (config `server.metrics_token`), for a scraper that is
 * not an API client. Compared in constant time over SHA-256 digests, so neither the time taken
 * nor the length of a guess says how close it came. Answers as the API's own auth does: 401
 * with `WWW-Authenticate` when missing or wrong, 400 when the header is malformed.
 */
export function requireMetricsToken(token: string): MiddlewareHandler {
  if (token.length < MIN_METRICS_TOKEN_LENGTH) throw new RangeError(`metrics token: expected at least ${MIN_METRICS_TOKEN_LENGTH} characters`);
  const expected = digest(token);
  return bearerAuth({
    realm: "clawhive-metrics",
    verifyToken: (presented) => timingSafeEqual(digest(presented), expected),
    noAuthenticationHeader: { message: errorBody("unauthorized", "GET /metrics needs the metrics token: send Authorization: Bearer <server.metrics_token>") },
    invalidAuthenticationHeader: { message: errorBody("invalid_authorization", "malformed Authorization header: expected Bearer followed by one token", "authorization") },
    invalidToken: { message: errorBody("unauthorized", "the metrics token is wrong") },
  });
}
