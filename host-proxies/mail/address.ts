/**
 * Recipients as the mail proxy and the `mail.send` grant see them: one bare address
 * (`local@domain`, RFC 5321 §4.1.2 dot-atom local part), its domain an IDNA A-label in lower case.
 * Everything a header could smuggle — a display name, a comment, a second address after a comma,
 * a quoted local part, CR or LF — is refused here, so the address a grant pattern decides is the
 * address the envelope carries. A lookalike domain (`corp.exаmple` with a Cyrillic а) turns into
 * its own `xn--` name and matches no pattern written for the real one.
 */
import { domainToASCII } from "node:url";
import { HostProxyError } from "../types.js";

/** RFC 5321 §4.5.3.1: 64 octets of local part, 255 of domain; a path of 256 with `<>`. */
const MAX_LOCAL = 64;
const MAX_ADDRESS = 254;
const LOCAL = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
// C0 controls (CR and LF among them), DEL, C1 controls, line and paragraph separators.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** `alice@corp.example`, split once into its parts. */
export interface MailAddress {
  address: string;
  local: string;
  domain: string;
}

/** The canonical form of one recipient, or an `invalid-input` error saying what is wrong. */
export function canonicalAddress(text: unknown, field = "address"): MailAddress {
  if (typeof text !== "string") throw HostProxyError.invalidInput(`mail: ${field}: expected an address string`);
  if (CONTROL.test(text)) throw HostProxyError.invalidInput(`mail: ${field}: contains a line break or a control character (header injection is refused)`);
  const shown = JSON.stringify(text.slice(0, 80));
  if (text.length > MAX_ADDRESS) throw HostProxyError.invalidInput(`mail: ${field}: longer than ${MAX_ADDRESS} characters`);
  const at = text.lastIndexOf("@");
  if (at <= 0 || text.indexOf("@") !== at) {
    throw HostProxyError.invalidInput(`mail: ${field}: ${shown} is not one bare address (write local@domain, without a display name)`);
  }
  const local = text.slice(0, at);
  const rawDomain = text.slice(at + 1);
  if (local.length > MAX_LOCAL || !LOCAL.test(local)) {
    throw HostProxyError.invalidInput(`mail: ${field}: ${shown}: the local part may hold letters, digits and !#$%&'*+/=?^_\`{|}~.- only (no quotes, spaces, commas or angle brackets)`);
  }
  const domain = canonicalDomain(rawDomain);
  if (domain === undefined) throw HostProxyError.invalidInput(`mail: ${field}: ${shown}: the domain is not a host name with at least one dot`);
  return { address: `${local}@${domain}`, local, domain };
}

/** The lower-case A-label form of a host name, or undefined (IP literals, trailing dots, single labels). */
export function canonicalDomain(text: string): string | undefined {
  if (text === "" || text.startsWith("[") || text.endsWith(".") || /[\s/\\?#%:@]/.test(text)) return undefined;
  const ascii = domainToASCII(text);
  if (ascii === "" || ascii.length > 253) return undefined;
  const labels = ascii.split(".");
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l))) return undefined;
  // A dotted-quad is an address, not a name (`domainToASCII` keeps it as written).
  if (labels.every((l) => /^\d+$/.test(l))) return undefined;
  return ascii;
}

/**
 * A recipient pattern of a grant: `alice@corp.example` (that address), `*@corp.example` (anyone
 * at that domain, not its subdomains), `*@*.corp.example` (anyone at any subdomain, not the
 * domain itself). Undefined when `text` is none of these, so the manifest names what is wrong.
 */
export interface RecipientPattern {
  /** `*` or an exact local part. */
  local: string;
  /** An exact A-label domain, or `*.` followed by one. */
  domain: string;
}

export function parseRecipientPattern(text: string): RecipientPattern | undefined {
  const at = text.lastIndexOf("@");
  if (at <= 0 || text.indexOf("@") !== at || CONTROL.test(text)) return undefined;
  const local = text.slice(0, at);
  const rawDomain = text.slice(at + 1);
  if (local !== "*" && (local.length > MAX_LOCAL || !LOCAL.test(local))) return undefined;
  const sub = rawDomain.startsWith("*.");
  const domain = canonicalDomain(sub ? rawDomain.slice(2) : rawDomain);
  if (domain === undefined) return undefined;
  return { local, domain: sub ? `*.${domain}` : domain };
}

/** The pattern as a grant should spell it (domain in A-labels, lower case), or undefined. */
export function canonicalRecipientPattern(text: string): string | undefined {
  const p = parseRecipientPattern(text);
  return p === undefined ? undefined : `${p.local}@${p.domain}`;
}

/**
 * Whether canonical `address` matches `pattern`. Local parts compare exactly (RFC 5321 §2.4: they
 * may be case-sensitive, so a mismatch can only refuse); domains compare as A-labels, whole
 * labels only: `*@corp.example` never matches `corp.example.evil.test` or `evilcorp.example`.
 */
export function recipientMatches(pattern: string, address: MailAddress): boolean {
  const p = parseRecipientPattern(pattern);
  if (p === undefined) return false;
  if (p.local !== "*" && p.local !== address.local) return false;
  if (p.domain.startsWith("*.")) return address.domain.endsWith(`.${p.domain.slice(2)}`);
  return address.domain === p.domain;
}

/** Whether every address `inner` allows, `outer` allows too (for narrowing a grant). */
export function recipientPatternCovers(outer: string, inner: string): boolean {
  const o = parseRecipientPattern(outer);
  const i = parseRecipientPattern(inner);
  if (o === undefined || i === undefined) return false;
  if (o.local !== "*" && o.local !== i.local) return false;
  if (o.domain.startsWith("*.")) {
    const base = o.domain.slice(2);
    const innerBase = i.domain.startsWith("*.") ? i.domain.slice(2) : i.domain;
    return innerBase.endsWith(`.${base}`) || (i.domain.startsWith("*.") && innerBase === base);
  }
  return i.domain === o.domain;
}
