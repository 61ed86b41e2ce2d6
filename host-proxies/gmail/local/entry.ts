/** One message file (or mbox slice) the local backend can read, and how its ids are made. */
import { createHash } from "node:crypto";

/** Local message and thread ids: 32 lowercase hex digits (128 bits of SHA-256). */
export const LOCAL_ID = /^[0-9a-f]{32}$/;

export interface LocalEntry {
  /** Stable id, see `localId`. */
  id: string;
  /** The folder's or mbox's label: `INBOX`, `Work/Reports`, … */
  label: string;
  unread: boolean;
  starred: boolean;
  /** Delivery time, epoch ms (0 when unknown): the listing order, newest first. */
  deliveredMs: number;
  /** Tie-breaker within a label: later in the folder listing or the mbox file is newer. */
  order: number;
  /** Keys the parse cache: equal keys mean equal bytes. */
  contentKey: string;
  /** The raw RFC 5322 bytes, at most `maxBytes` of them. */
  read(maxBytes: number): Promise<{ bytes: Buffer; truncated: boolean }>;
}

/** SHA-256 over the NUL-joined parts, first 32 hex digits. */
export function localId(...parts: string[]): string {
  return createHash("sha256").update(parts.join("\0")).digest("hex").slice(0, 32);
}

/** The labels a message shows: its folder, then the state labels Gmail would give it. */
export function entryLabels(entry: LocalEntry): string[] {
  return [entry.label, ...(entry.unread ? ["UNREAD"] : []), ...(entry.starred ? ["STARRED"] : [])];
}

/** Newest first: delivery time, then position. */
export function newestFirst(a: LocalEntry, b: LocalEntry): number {
  return b.deliveredMs - a.deliveredMs || b.order - a.order;
}
