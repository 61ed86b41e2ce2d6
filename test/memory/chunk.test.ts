import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { chunkMarkdown } from "../../runtime/memory/index.js";

const cases: { name: string; text: string; options?: { maxChars: number; overlapChars: number }; want: { headingPath: string[]; text: string }[] }[] = [
  { name: "no heading: one chunk, empty path", text: "just some words\n", want: [{ headingPath: [], text: "just some words" }] },
  {
    name: "nested headings keep their path; a sibling pops the deeper one",
    text: "# A\nintro\n## B\nbee\n### C\nsea\n## D\ndee\n",
    want: [
      { headingPath: ["A"], text: "intro" },
      { headingPath: ["A", "B"], text: "bee" },
      { headingPath: ["A", "B", "C"], text: "sea" },
      { headingPath: ["A", "D"], text: "dee" },
    ],
  },
  { name: "text before the first heading", text: "preface\n# H\nbody", want: [{ headingPath: [], text: "preface" }, { headingPath: ["H"], text: "body" }] },
  { name: "empty sections are dropped", text: "# A\n\n## B\nbody\n", want: [{ headingPath: ["A", "B"], text: "body" }] },
  {
    name: "a # line inside a code fence is text",
    text: "# Test\n```console\n$ node --test\n# tests 2\n```\nafter\n",
    want: [{ headingPath: ["Test"], text: "```console\n$ node --test\n# tests 2\n```\nafter" }],
  },
  { name: "closing #s and trailing spaces trimmed", text: "## Title ##  \nx", want: [{ headingPath: ["Title"], text: "x" }] },
  { name: "#hashtag (no space) is not a heading", text: "#hashtag line", want: [{ headingPath: [], text: "#hashtag line" }] },
  { name: "CRLF line ends", text: "# A\r\none\r\n# B\r\ntwo", want: [{ headingPath: ["A"], text: "one" }, { headingPath: ["B"], text: "two" }] },
  {
    name: "a long section falls back to overlapping windows cut at spaces",
    text: "# Long\naaaa bbbb cccc dddd eeee ffff",
    options: { maxChars: 10, overlapChars: 5 },
    want: [
      { headingPath: ["Long"], text: "aaaa bbbb" },
      { headingPath: ["Long"], text: "bbbb cccc" },
      { headingPath: ["Long"], text: "cccc dddd" },
      { headingPath: ["Long"], text: "dddd eeee" },
      { headingPath: ["Long"], text: "eeee ffff" },
    ],
  },
  { name: "a word longer than the window is cut hard", text: "abcdefghijkl", options: { maxChars: 5, overlapChars: 1 }, want: ["abcde", "efghi", "ijkl"].map((text) => ({ headingPath: [], text })) },
];

describe("chunkMarkdown", () => {
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(chunkMarkdown(c.text, c.options), c.want));
  }

  it("every window is within maxChars and consecutive windows overlap", () => {
    const words = Array.from({ length: 500 }, (_, i) => `word${i}`).join(" ");
    const chunks = chunkMarkdown(`# S\n${words}`, { maxChars: 200, overlapChars: 40 });
    assert.ok(chunks.length > 5);
    for (const c of chunks) assert.ok(c.text.length <= 200, `${c.text.length}`);
    for (let i = 1; i < chunks.length; i++) {
      const lastWord = chunks[i - 1]!.text.split(" ").at(-1)!;
      assert.ok(chunks[i]!.text.includes(lastWord), `window ${i} shares no text with the one before`);
    }
  });

  it("refuses an overlap not below the window", () => {
    assert.throws(() => chunkMarkdown("x", { maxChars: 10, overlapChars: 10 }), RangeError);
  });
});
