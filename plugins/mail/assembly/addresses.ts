/** One mailbox of an address header: `Alice <alice@example.com>` is {name: "Alice", email: …}. */
export class Mailbox {
  /** `email` as written; compare with `key`. */
  constructor(public name: string, public email: string) {}

  /** Addresses compare case-insensitively in practice (the local part rarely is not). */
  key(): string {
    return this.email.toLowerCase();
  }
}

/**
 * The mailboxes of an address-list header (RFC 5322 §3.4), well enough to name a thread's
 * participants: commas inside quotes, comments and angle brackets do not split, a group's
 * `name:` and `;` are dropped. Not a validator — whatever the header holds is shown, not trusted.
 */
export function parseAddressList(header: string): Mailbox[] {
  const mailboxes = new Array<Mailbox>();
  const parts = splitTopLevel(header);
  for (let i = 0; i < parts.length; i++) {
    const mailbox = parseMailbox(unchecked(parts[i]));
    if (mailbox != null) mailboxes.push(mailbox);
  }
  return mailboxes;
}

function splitTopLevel(header: string): string[] {
  const parts = new Array<string>();
  let start = 0;
  let quoted = false;
  let angle = 0;
  let comment = 0;
  const n = header.length;
  for (let i = 0; i < n; i++) {
    const c = header.charCodeAt(i);
    if (quoted) {
      if (c == 0x5c && i + 1 < n) { i++; continue; } // `\` escapes the next unit
      if (c == 0x22) quoted = false;
    } else if (c == 0x22) quoted = true;
    else if (c == 0x28) comment++;
    else if (c == 0x29 && comment > 0) comment--;
    else if (c == 0x3c) angle++;
    else if (c == 0x3e && angle > 0) angle--;
    else if ((c == 0x2c || c == 0x3b) && angle == 0 && comment == 0) {
      parts.push(header.substring(start, i));
      start = i + 1;
    } else if (c == 0x3a && angle == 0 && comment == 0) {
      // `Team: a@x, b@y;` — the group's display name is not a mailbox.
      start = i + 1;
    }
  }
  parts.push(header.substring(start));
  return parts;
}

function parseMailbox(part: string): Mailbox | null {
  const text = part.trim();
  if (text == "") return null;
  const open = text.lastIndexOf("<");
  const close = text.lastIndexOf(">");
  if (open != -1 && close > open) {
    const email = text.substring(open + 1, close).trim();
    if (email == "") return null;
    return new Mailbox(unquote(text.substring(0, open).trim()), email);
  }
  // `alice@example.com (Alice)`: the comment is the old way to write a name.
  const old = oldStyle(text);
  if (old != null) return old;
  return new Mailbox("", text);
}

/** What `/^(\S+)\s*\((.*)\)$/` matches, as a mailbox: the longest leading word that still leaves `(…)` to the end. */
function oldStyle(text: string): Mailbox | null {
  const n = text.length;
  if (n < 3 || text.charCodeAt(n - 1) != 0x29) return null;
  let word = 0;
  while (word < n && !isSpace(text.charCodeAt(word))) word++;
  for (let i = word; i >= 1; i--) {
    let open = i;
    if (i == word) while (open < n && isSpace(text.charCodeAt(open))) open++;
    if (open >= n - 1 || text.charCodeAt(open) != 0x28) continue;
    let bare = true;
    for (let k = open + 1; k < n - 1; k++) if (isLineTerminator(text.charCodeAt(k))) bare = false;
    if (!bare) return null;
    return new Mailbox(text.substring(open + 1, n - 1).trim(), text.substring(0, i));
  }
  return null;
}

/** JavaScript's `\s`. */
function isSpace(c: i32): bool {
  return (c >= 0x09 && c <= 0x0d) || c == 0x20 || c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
    c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000 || c == 0xfeff;
}

/** What JavaScript's `.` does not match. */
function isLineTerminator(c: i32): bool {
  return c == 0x0a || c == 0x0d || c == 0x2028 || c == 0x2029;
}

/** A quoted display name without its quotes, each `\x` read as `x`. */
function unquote(name: string): string {
  const n = name.length;
  if (n < 2 || name.charCodeAt(0) != 0x22 || name.charCodeAt(n - 1) != 0x22) return name;
  const inner = name.substring(1, n - 1);
  const parts = new Array<string>();
  let run = 0;
  for (let i = 0; i < inner.length; i++) {
    if (inner.charCodeAt(i) != 0x5c || i + 1 >= inner.length || isLineTerminator(inner.charCodeAt(i + 1))) continue;
    parts.push(inner.substring(run, i));
    run = i + 1;
    i++;
  }
  parts.push(inner.substring(run));
  return parts.join("");
}
