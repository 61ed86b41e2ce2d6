/**
 * The shape checks of what a caller names in an event: a time-zone name and an attendee's
 * address. Only the shape: whether a zone exists or an address delivers is the host's to say.
 */
function isZoneChar(c: i32, first: bool): bool {
  const letter = (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
  if (first) return letter;
  return letter || (c >= 0x30 && c <= 0x39) || c == 0x5f || c == 0x2b || c == 0x2d;
}

/**
 * An IANA zone name (`Europe/Paris`, `America/Argentina/Buenos_Aires`, `Etc/GMT+5`) or `UTC`:
 * a letter, then letters, digits, `_`, `+`, `-`, in segments joined by `/`, none empty.
 * Whether it exists is for the host, which has the zone database.
 */
export function isZoneName(name: string): bool {
  const n = name.length;
  if (n == 0 || !isZoneChar(name.charCodeAt(0), true)) return false;
  let segment = 1;
  for (let i = 1; i < n; i++) {
    const c = name.charCodeAt(i);
    if (c == 0x2f) {
      if (segment == 0) return false;
      segment = 0;
    } else if (isZoneChar(c, false)) {
      segment++;
    } else {
      return false;
    }
  }
  return segment > 0;
}

/** JavaScript's `\s`: the whitespace and line terminators of ECMA-262. */
function isSpace(c: i32): bool {
  return (c >= 0x09 && c <= 0x0d) || c == 0x20 || c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
    c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000 || c == 0xfeff;
}

function isAddressChar(c: i32): bool {
  return !isSpace(c) && c != 0x40 && c != 0x3c && c != 0x3e && c != 0x28 && c != 0x29 && c != 0x2c && c != 0x3b && c != 0x3a && c != 0x22;
}

/**
 * Enough to catch a name or a sentence given for an address (`local@domain.tld`, none of
 * whitespace, `@<>(),;:"` in the parts); the host and the mail system decide.
 */
export function isEmail(address: string): bool {
  const n = address.length;
  const at = address.indexOf("@");
  if (at < 1) return false;
  for (let i = 0; i < n; i++) if (i != at && !isAddressChar(address.charCodeAt(i))) return false;
  // A dot in the domain with something on each side.
  for (let i = at + 2; i < n - 1; i++) if (address.charCodeAt(i) == 0x2e) return true;
  return false;
}
