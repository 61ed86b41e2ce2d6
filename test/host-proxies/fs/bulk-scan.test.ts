/**
 * The line scanner against the definition it must equal: split the file into lines (on `\n`,
 * dropping a `\r` before it and a final empty line) and test each line alone. Whole-file scans,
 * byte prefilters and literal fast paths may only make that faster, never different.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { compilePattern, requiredLiteral } from "../../../host-proxies/fs/bulk/pattern.js";
import { scanFile } from "../../../host-proxies/fs/bulk/scan.js";
import { hasUpperCase } from "../../../host-proxies/fs/bulk/options.js";

const LIMITS = { contextBefore: 0, contextAfter: 0, maxLineLength: 4096, maxMatchesPerFile: 10_000, remaining: 10_000, deadline: Number.POSITIVE_INFINITY };

function naive(text: string, pattern: string, flags: string): number[] {
  if (text === "") return [];
  const lines = text.replace(/^\uFEFF/, "").split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const re = new RegExp(pattern, flags);
  return lines.flatMap((line, i) => (re.test(line.endsWith("\r") ? line.slice(0, -1) : line) ? [i + 1] : []));
}

function scanned(text: string, pattern: string, options: { mode: "literal" | "regex"; caseInsensitive: boolean }): number[] {
  const outcome = scanFile(Buffer.from(text, "utf8"), compilePattern(pattern, options), LIMITS);
  assert.equal(outcome.kind, "text");
  return outcome.kind === "text" ? outcome.hits.map((h) => h.line) : [];
}

const TEXTS = [
  "a\nb\n",
  "one\r\ntwo\r\nthree",
  "foo bar\nbar foo\n\nfoo\n",
  "a\n b\nab\na b\n",
  "\uFEFFfirst\nsecond\n",
  "x\r\ny\rz\n",
  "tail without newline",
  "\n\n\n",
  "",
  "caf\u00e9 CAF\u00c9\n\u00fcber\n",
  "needle in a haystack\nhay\nneedle\n",
  "ab\nab\nabab\n",
];
const PATTERNS: Array<[string, string]> = [
  ["^", ""], ["$", ""], ["^$", ""], ["a\\s*b", ""], ["a\\sb", ""], ["\\s+b", ""], ["foo$", ""], ["^foo", ""],
  ["b(?=\\n)", ""], ["(?<=a)b", ""], ["y$", ""], ["^z", ""], ["[^x]$", ""], ["needle", ""], ["needle", "i"],
  ["NEEDLE", "i"], ["caf\u00e9", "i"], ["(ab)+", ""], ["a|b", ""], ["[\\s\\S]+b", ""], ["h.y", ""], ["o{2}", ""],
  ["\\bbar\\b", ""], ["", ""], ["\u00fcber", ""], ["t(?!w)", ""], ["w", ""],
];

for (const [pattern, flags] of PATTERNS) {
  test(`bulk scan: /${pattern}/${flags} finds exactly the lines line-by-line grep finds`, () => {
    for (const text of TEXTS) {
      assert.deepEqual(scanned(text, pattern, { mode: "regex", caseInsensitive: flags === "i" }), naive(text, pattern, flags), JSON.stringify(text));
    }
  });
}

test("bulk scan: literal mode finds the text, metacharacters and all, and nothing else", () => {
  for (const [pattern, text, lines] of [
    ["a.b", "a.b\naxb\n", [1]],
    ["(x)", "(x)\nx\n", [1]],
    ["ab", "xab\nAB\n", [1]],
    ["a\nb", "a\nb\n", []],
  ] as const) {
    assert.deepEqual(scanned(text, pattern, { mode: "literal", caseInsensitive: false }), lines, pattern);
  }
  assert.deepEqual(scanned("xab\nAB\n", "ab", { mode: "literal", caseInsensitive: true }), [1, 2]);
});

test("bulk scan: context lines, clipped lines and a BOM", () => {
  const outcome = scanFile(Buffer.from("\uFEFFone\ntwo\nthree\n"), compilePattern("one", { mode: "regex", caseInsensitive: false }), { ...LIMITS, contextAfter: 5 });
  assert.deepEqual(outcome.kind === "text" && outcome.hits, [{ line: 1, text: "one", before: [], after: ["two", "three"] }]);
  const long = `${"a".repeat(500)}needle${"b".repeat(500)}`;
  const clipped = scanFile(Buffer.from(long), compilePattern("needle", { mode: "literal", caseInsensitive: false }), { ...LIMITS, maxLineLength: 100 });
  const text = clipped.kind === "text" ? (clipped.hits[0]?.text ?? "") : "";
  assert.ok(text.includes("needle") && text.startsWith("…") && text.endsWith("…") && text.length <= 102, text);
});

// [pattern, the literal every match must contain, or undefined]
const REQUIRED: Array<[string, string | undefined]> = [
  ["function\\s+main", "function"],
  ["foo|bar", undefined],
  ["ab*c", "a"],
  ["abc?d", "ab"],
  ["(?:abc)+def", "def"],
  ["[abc]xyz", "xyz"],
  ["x{2}yz", "yz"],
  ["a\\.b\\(c", "a.b(c"],
  ["\\d+px", "px"],
  ["\u{1F600}+smile", "smile"],
  ["^import ", "import "],
  ["a{,2}bc", "a{,2}bc"],
];
for (const [pattern, literal] of REQUIRED) {
  test(`bulk scan: /${pattern}/ requires ${literal === undefined ? "no literal" : JSON.stringify(literal)}`, () => {
    const got = requiredLiteral(pattern);
    if (literal === undefined || literal.length < 2) assert.equal(got, literal === undefined ? undefined : got);
    else assert.equal(got, literal);
    // Whatever it extracts, every match must contain it.
    if (got !== undefined) {
      const samples = ["function  main", "abbbc", "abd", "abcabcdef", "axyz", "xxyz", "a.b(c", "12px", "\u{1F600}\u{1F600}smile", "import x", "a{,2}bc"];
      for (const sample of samples) {
        const m = new RegExp(pattern).exec(sample);
        if (m !== null) assert.ok(m[0].includes(got), `${pattern} matched ${m[0]} without ${got}`);
      }
    }
  });
}

test("bulk scan: smart case reads the pattern's letters, not its escapes", () => {
  assert.equal(hasUpperCase("todo", "regex"), false);
  assert.equal(hasUpperCase("\\S+\\W\\p{Lu}", "regex"), false);
  assert.equal(hasUpperCase("Todo", "regex"), true);
  assert.equal(hasUpperCase("\\S", "literal"), true);
});
