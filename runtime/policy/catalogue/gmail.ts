/**
 * `gmail.read`: which labels an agent may read mail under, plus an optional Gmail search
 * `query` the gmail proxy ANDs onto every search (e.g. `newer_than:30d -category:promotions`).
 * Labels are globs over Gmail label names (`INBOX`, `Work/*`), compared case-sensitively:
 * stricter than Gmail's own case-insensitive names, so a mismatch can only deny.
 */
import * as v from "valibot";
import { strictObject } from "./strict.js";
import { anyGlobMatches, globsCover } from "./glob.js";
import { patternList } from "./names.js";
import type { CapabilityEntry, Coverage, Decision } from "./types.js";
import { ALLOW, deny } from "./types.js";

const GmailResourceSchema = strictObject({
  labels: v.pipe(patternList("label", 225), v.minLength(1, "expected at least one label"), v.description("label names or globs: INBOX, Work/*")),
  query: v.pipe(
    v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(1000))),
    v.description("a Gmail search every search is ANDed with, e.g. newer_than:30d"),
  ),
});
export type GmailResource = v.InferOutput<typeof GmailResourceSchema>;

/** One label a message is read or listed under. */
export interface GmailRequest {
  label: string;
}

/**
 * `query` is not compared: every layer's query is ANDed onto the search at call time, so an
 * inner grant without the outer's query is still held to it, and no query can widen.
 */
function gmailCovers(outer: GmailResource, inner: GmailResource): Coverage {
  return globsCover(outer.labels, inner.labels, "labels");
}

function gmailMatches(grant: GmailResource, request: GmailRequest): Decision {
  if (anyGlobMatches(grant.labels, request.label)) return ALLOW;
  return deny("gmail.read", "label-not-granted", `label ${JSON.stringify(request.label)} is not granted`);
}

export const gmailRead: CapabilityEntry<GmailResource, GmailRequest> = {
  name: "gmail.read",
  description: "Search and read Gmail messages under the granted labels.",
  resource: GmailResourceSchema,
  defaultRisk: "safe",
  riskReason: "reads change nothing (DESIGN: reads Safe); mail is untrusted input, see the mail-read-* dangerous combinations",
  covers: gmailCovers,
  matches: gmailMatches,
};
