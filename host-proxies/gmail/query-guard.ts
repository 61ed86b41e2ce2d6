/**
 * ANDing every layer's query onto a search: `(q1) (q2) (user query)`. Wrapping is only a
 * guarantee if each piece is a closed group, so a piece that could close the wrapper early
 * (`x) OR (in:anywhere`), leave a quote or bracket open, or carry a backslash (Gmail's quoting
 * rules for it are undocumented) is refused, never repaired. The label itself never travels in
 * the query: backends filter by it separately (`labelIds` for the Gmail API).
 */
import { HostProxyError } from "../types.js";

export const MAX_QUERY_LENGTH = 1000;

const CLOSERS: Record<string, string> = { ")": "(", "}": "{" };

/** Throws `invalid-input` unless `query` is a balanced, closed group body; `what` names it. */
export function checkQueryPiece(query: string, what: string): void {
  if (query.length > MAX_QUERY_LENGTH) throw bad(what, `longer than ${MAX_QUERY_LENGTH} characters`);
  // Control characters would end a header or a line in some logs; backslashes have no documented meaning.
  if (/[\u0000-\u001f\u007f\\]/.test(query)) throw bad(what, "control characters and backslashes are not allowed");
  const open: string[] = [];
  let quoted = false;
  for (const ch of query) {
    if (ch === '"') quoted = !quoted;
    else if (quoted) continue;
    else if (ch === "(" || ch === "{") open.push(ch);
    else if (ch === ")" || ch === "}") {
      if (open.pop() !== CLOSERS[ch]) throw bad(what, `unbalanced ${JSON.stringify(ch)}`);
    }
  }
  if (quoted) throw bad(what, "a quote is not closed");
  if (open.length > 0) throw bad(what, `unbalanced ${JSON.stringify(open[open.length - 1])}`);
}

/**
 * The pieces, each checked and wrapped in parentheses, joined by spaces (Gmail's AND); empty
 * pieces are left out. `""` when nothing is left.
 */
export function andQueries(pieces: ReadonlyArray<{ query: string; what: string }>): string {
  const groups: string[] = [];
  for (const { query, what } of pieces) {
    checkQueryPiece(query, what);
    if (query.trim() !== "") groups.push(`(${query.trim()})`);
  }
  return groups.join(" ");
}

function bad(what: string, detail: string): HostProxyError {
  return HostProxyError.invalidInput(`gmail: ${what}: ${detail}`);
}
