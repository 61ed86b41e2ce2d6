/**
 * HTML character references (the WHATWG list's common part): numeric ones in full, named ones a
 * page's text actually uses. An unknown name stays as written, as a browser shows it.
 */
const NAMES = [
  "amp", "lt", "gt", "quot", "apos", "nbsp", "copy", "reg", "trade", "hellip", "mdash", "ndash",
  "lsquo", "rsquo", "sbquo", "ldquo", "rdquo", "bdquo", "laquo", "raquo", "bull", "middot", "times",
  "divide", "euro", "pound", "yen", "cent", "sect", "para", "deg", "plusmn", "micro", "frac12",
  "frac14", "frac34", "larr", "rarr", "uarr", "darr", "harr", "check", "shy", "zwj", "zwnj", "ensp", "emsp", "thinsp",
];
const CODES: i32[] = [
  0x26, 0x3c, 0x3e, 0x22, 0x27, 0xa0, 0xa9, 0xae, 0x2122, 0x2026, 0x2014, 0x2013,
  0x2018, 0x2019, 0x201a, 0x201c, 0x201d, 0x201e, 0xab, 0xbb, 0x2022, 0xb7, 0xd7,
  0xf7, 0x20ac, 0xa3, 0xa5, 0xa2, 0xa7, 0xb6, 0xb0, 0xb1, 0xb5, 0xbd,
  0xbc, 0xbe, 0x2190, 0x2192, 0x2191, 0x2193, 0x2194, 0x2713, 0xad, 0x200d, 0x200c, 0x2002, 0x2003, 0x2009,
];
/** The longest name above, plus room: a longer run after `&` is not a reference. */
const MAX_NAME = 8;

/** `s` with its character references replaced; linear in its length. */
export function decodeEntities(s: string): string {
  let amp = s.indexOf("&");
  if (amp < 0) return s;
  const parts = new Array<string>();
  let run = 0;
  while (amp >= 0) {
    const semi = s.indexOf(";", amp + 1);
    if (semi < 0) break;
    let code: i32 = -1;
    if (semi - amp - 1 <= MAX_NAME + 2 && semi > amp + 1) code = reference(s.substring(amp + 1, semi));
    if (code >= 0) {
      parts.push(s.substring(run, amp));
      parts.push(String.fromCodePoint(code));
      run = semi + 1;
    }
    amp = s.indexOf("&", code >= 0 ? semi + 1 : amp + 1);
  }
  parts.push(s.substring(run));
  return parts.join("");
}

/** The code point `body` (between `&` and `;`) names, or -1. */
function reference(body: string): i32 {
  if (body.charCodeAt(0) == 0x23 /* # */) {
    const hex = body.length > 1 && (body.charCodeAt(1) == 0x78 || body.charCodeAt(1) == 0x58);
    const digits = body.substring(hex ? 2 : 1);
    if (digits.length == 0) return -1;
    let v: i64 = 0;
    for (let i = 0; i < digits.length; i++) {
      const c = digits.charCodeAt(i);
      let d: i32 = -1;
      if (c >= 0x30 && c <= 0x39) d = c - 0x30;
      else if (hex && c >= 0x61 && c <= 0x66) d = c - 0x57;
      else if (hex && c >= 0x41 && c <= 0x46) d = c - 0x37;
      if (d < 0) return -1;
      v = v * (hex ? 16 : 10) + d;
      if (v > 0x10ffff) return 0xfffd;
    }
    // As a browser does: NUL and surrogates become U+FFFD.
    if (v == 0 || (v >= 0xd800 && v <= 0xdfff)) return 0xfffd;
    return <i32>v;
  }
  const at = NAMES.indexOf(body);
  return at < 0 ? -1 : unchecked(CODES[at]);
}
