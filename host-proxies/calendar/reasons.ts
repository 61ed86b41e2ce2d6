/**
 * The capabilities and stable reason codes of calendar denials. Operators, the policy engine
 * and tests match on these strings, so they never change meaning. (The policy's own matcher,
 * runtime/policy/catalogue/calendar.ts, says `calendar-not-allowed` for the same refusal one
 * layer earlier.)
 */
import { HostProxyError } from "../types.js";

export const CALENDAR_CAPABILITIES = {
  read: "calendar.read",
  add: "calendar.add",
} as const;

export type CalendarCapability = (typeof CALENDAR_CAPABILITIES)[keyof typeof CALENDAR_CAPABILITIES];

export const CALENDAR_DENIAL_REASONS = {
  /** The calendar id matches none of the proxy's granted patterns (or `allowCalendar` said no). */
  notGranted: "calendar-not-granted",
  /** Google answered 401: the bearer token is missing, expired or revoked. */
  tokenRejected: "token-rejected",
  /** Google answered 403: the account may not do this (not the grant's doing). */
  providerForbidden: "provider-forbidden",
} as const;

export type CalendarDenialReason = (typeof CALENDAR_DENIAL_REASONS)[keyof typeof CALENDAR_DENIAL_REASONS];

export function calendarDenied(capability: CalendarCapability, reason: CalendarDenialReason, message: string): HostProxyError {
  return HostProxyError.denied(capability, reason, message);
}
