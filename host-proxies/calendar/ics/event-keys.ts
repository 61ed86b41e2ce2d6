/**
 * What a VEVENT is keyed by when its versions and overrides are grouped: its UID. RFC 5545
 * makes UID required, but exports drop it (Podio-style feeds, hand-written files, old Outlook
 * add-ins); such an event is keyed by a digest of its content, so the same file read twice — or
 * re-exported with a new DTSTAMP, which a publisher stamps on every download (RFC 5545
 * §3.8.7.2) — gives it the same id. Without a UID no two VEVENTs are known to be one event, so
 * none are merged: two that read alike get the digest and then `-2`, `-3`, … in file order.
 */
import ICAL from "ical.js";
import { createHash } from "node:crypto";
import type { IcalComponent } from "./read.js";
import { readableValue } from "./unreadable.js";

/** Properties left out of the digest: they change between two exports of one event. */
const VOLATILE = new Set(["dtstamp"]);

export class EventKeys {
  readonly #seen = new Map<string, number>();

  /** The UID, or `nouid-<digest>` (`-<n>` for the nth VEVENT with that digest). */
  of(vevent: IcalComponent): string {
    const uid = readableValue(vevent, "uid");
    if (typeof uid === "string" && uid.trim() !== "") return uid.trim();
    const digest = `nouid-${createHash("sha256").update(stableText(vevent)).digest("hex").slice(0, 24)}`;
    const n = (this.#seen.get(digest) ?? 0) + 1;
    this.#seen.set(digest, n);
    return n === 1 ? digest : `${digest}-${n}`;
  }
}

/** The component as text without its volatile properties (its subcomponents, alarms, kept). */
function stableText(vevent: IcalComponent): string {
  const copy = new ICAL.Component(structuredClone(vevent.toJSON()) as unknown[]);
  for (const name of VOLATILE) copy.removeAllProperties(name);
  return copy.toString();
}
