/**
 * A delivery's signature: `X-Clawhive-Signature: v1=<hex HMAC-SHA256(secret, "<timestamp>.<body>")>`
 * with `X-Clawhive-Timestamp: <unix seconds>`. The timestamp is signed with the body, so a
 * receiver that refuses old timestamps also refuses replays.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

export function signDelivery(secret: string, timestamp: number, body: string): string {
  return `v1=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`;
}

/** What a receiver runs: true when `signature` signs `body` at `timestamp` and the timestamp is recent. */
export function verifyDelivery(secret: string, options: { timestamp: string; signature: string; body: string; now?: number; toleranceSeconds?: number }): boolean {
  if (!/^\d{1,12}$/.test(options.timestamp)) return false;
  const timestamp = Number(options.timestamp);
  const now = Math.floor((options.now ?? Date.now()) / 1000);
  if (Math.abs(now - timestamp) > (options.toleranceSeconds ?? 300)) return false;
  const expected = Buffer.from(signDelivery(secret, timestamp, options.body));
  const given = Buffer.from(options.signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
