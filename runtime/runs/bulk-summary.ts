/**
 * What the outcome record of an fs `walk` or `search` names (DESIGN: bulk work is audited as
 * one record naming the subtree, the pattern and the counts): the start, the counts by reason,
 * and for a search each file whose lines it returned. Its intent already names the options.
 */
import type { JsonValue } from "../audit/index.js";
import type { FsSearchResult, FsWalkResult } from "../../host-proxies/fs/index.js";
import type { HostCall } from "../../host-proxies/types.js";

export function bulkSummary(call: HostCall, value: unknown): JsonValue | undefined {
  if (call.iface !== "fs" || (call.fn !== "walk" && call.fn !== "search") || value === null || typeof value !== "object") return undefined;
  const path = typeof call.args[0] === "string" ? call.args[0] : null;
  if (call.fn === "walk") {
    const walk = value as FsWalkResult;
    return { path, returned: walk.entries.length, ...counts(walk) };
  }
  const search = value as FsSearchResult;
  const options = call.args[1] as { pattern?: unknown } | undefined;
  return {
    path,
    pattern: typeof options?.pattern === "string" ? options.pattern : null,
    matches: search.matches.length,
    files_scanned: search.filesScanned,
    files_matched: search.filesMatched,
    bytes_read: Number(search.bytesRead),
    ...counts(search),
    // The files whose content left the host: every one a match line (or its context) came from.
    files: [...new Set(search.matches.map((m) => m.path))],
  };
}

function counts(result: FsWalkResult | FsSearchResult): Record<string, JsonValue> {
  return {
    entries_scanned: result.entriesScanned,
    truncated: result.truncated,
    stopped: result.stopped ?? null,
    skipped: { ...result.skipped },
  };
}
