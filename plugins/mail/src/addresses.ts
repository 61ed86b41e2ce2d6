/** One mailbox of an address header: `Alice <alice@example.com>` is {name: "Alice", email: …}. */
export interface Mailbox {
  name: string;
  /** As written; compare with `mailboxKey`. */
  email: string;
}

/**
 * The mailboxes of an address-list header (RFC 5322 §3.4), well enough to name a thread's
 * participants: commas inside quotes, comments and angle brackets do not split, a group's
 * `name:` and `;` are dropped. Not a validator — whatever the header holds is shown, not trusted.
 */
export function parseAddressList(header: string): Mailbox[] {
  const mailboxes: Mailbox[] = [];
  for (const part of splitTopLevel(header)) {
    const mailbox = parseMailbox(part);
    if (mailbox !== undefined) mailboxes.push(mailbox);
  }
  return mailboxes;
}

/** Addresses compare case-insensitively in practice (the local part rarely is not). */
export function mailboxKey(mailbox: Mailbox): string {
  return mailbox.email.toLowerCase();
}

function splitTopLevel(header: string): string[] {
  const parts: string[] = [];
  let current = "";
  let quoted = false;
  let angle = 0;
  let comment = 0;
  for (let i = 0; i < header.length; i++) {
    const c = header[i] as string;
    if (quoted) {
      if (c === "\\" && i + 1 < header.length) {
        current += c + header[++i];
        continue;
      }
      if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === "(") comment++;
    else if (c === ")" && comment > 0) comment--;
    else if (c === "<") angle++;
    else if (c === ">" && angle > 0) angle--;
    else if ((c === "," || c === ";") && angle === 0 && comment === 0) {
      parts.push(current);
      current = "";
      continue;
    } else if (c === ":" && angle === 0 && comment === 0) {
      // `Team: a@x, b@y;` — the group's display name is not a mailbox.
      current = "";
      continue;
    }
    current += c;
  }
  parts.push(current);
  return parts;
}

function parseMailbox(part: string): Mailbox | undefined {
  const text = part.trim();
  if (text === "") return undefined;
  const open = text.lastIndexOf("<");
  const close = text.lastIndexOf(">");
  if (open !== -1 && close > open) {
    const email = text.slice(open + 1, close).trim();
    if (email === "") return undefined;
    return { name: unquote(text.slice(0, open).trim()), email };
  }
  // `alice@example.com (Alice)`: the comment is the old way to write a name.
  const comment = /^(\S+)\s*\((.*)\)$/.exec(text);
  if (comment) return { name: comment[2]?.trim() ?? "", email: comment[1] ?? "" };
  return { name: "", email: text };
}

function unquote(name: string): string {
  if (name.length >= 2 && name.startsWith('"') && name.endsWith('"')) return name.slice(1, -1).replace(/\\(.)/g, "$1");
  return name;
}
