/**
 * The gmail proxy's resource matcher: is a label inside the granted patterns? The same globs
 * as the policy catalogue (`*` is any run of characters, `/` included; everything else is
 * literal, compared case-sensitively), so the proxy and the gate can never disagree.
 *
 * State labels describe a message, they do not place it: `UNREAD`, `STARRED`, `IMPORTANT` and
 * Gmail's automatic `CATEGORY_*`. They never make a message visible on their own, or a grant of
 * `*` narrowed by a layer that refuses `Secret` would still show an unread Secret message
 * through `UNREAD`. A message is visible when one of its other labels is granted; granted state
 * labels are then shown with it, and a granted state label may be listed (it filters).
 */
import { anyGlobMatches } from "../glob.js";

const STATE_LABELS = new Set(["UNREAD", "STARRED", "IMPORTANT"]);

/** Whether `label` (a literal name, never a pattern) matches one of `patterns`. Pure. */
export function labelAllowed(label: string, patterns: readonly string[]): boolean {
  return label.length > 0 && anyGlobMatches(patterns, label);
}

/** Whether `label` only describes a message's state (see above). */
export function isStateLabel(label: string): boolean {
  return STATE_LABELS.has(label) || label.startsWith("CATEGORY_");
}
