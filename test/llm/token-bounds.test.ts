/**
 * Token counts of hostile text are bounded in work: no chunk the tokenizer sees is longer than
 * MAX_CHUNK_CHARS, a long text is estimated from a fixed number of sampled characters, and the
 * estimate stays close to the exact count on ordinary prose. Work is measured by what reaches
 * the tokenizer (its calls and their lengths), not by a clock.
 */
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { test } from "node:test";
import { countTokens, fitToBudget, toolResult, toolUse, user, assistant } from "../../runtime/llm/index.js";
import { chunksOf, countBounded, EXACT_MAX_CHARS, MAX_CHUNK_CHARS, SAMPLE_CHARS, SAMPLES } from "../../runtime/llm/context/token-chunks.js";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";

const exact = (createRequire(import.meta.url)("gpt-tokenizer/encoding/o200k_base") as { countTokens: (t: string) => number }).countTokens;
const MB = 1024 * 1024;

/** Ordinary prose: the project's own documentation, not repeated. */
const PROSE = [join(PROJECT_ROOT, "README.md"), ...readdirSync(join(PROJECT_ROOT, "docs")).map((f) => join(PROJECT_ROOT, "docs", f))]
  .filter((f) => f.endsWith(".md"))
  .map((f) => readFileSync(f, "utf8"))
  .join("\n\n");
const sized = (text: string, n: number) => text.repeat(Math.ceil(n / text.length)).slice(0, n);

/** Calls the tokenizer would get, with their lengths, and the quadratic-work proxy Σ len². */
function work(text: string): { calls: number; chars: number; longest: number; squares: number } {
  const seen = { calls: 0, chars: 0, longest: 0, squares: 0 };
  countBounded(text, (chunk) => {
    seen.calls++;
    seen.chars += chunk.length;
    seen.longest = Math.max(seen.longest, chunk.length);
    seen.squares += chunk.length * chunk.length;
    return chunk.length;
  });
  return seen;
}

const HOSTILE: Array<[string, string]> = [
  ["1 MB of one letter", "A".repeat(MB)],
  ["1 MB of one punctuation mark", "=".repeat(MB)],
  ["1 MB of one astral character (surrogate pairs)", "😀".repeat(MB / 2)],
  ["1 MB of one accented letter", "é".repeat(MB)],
  ["1 MB of newlines", "\n".repeat(MB)],
  ["a 60 KB word (counted exactly, still chunked)", "x".repeat(60 * 1024)],
  ["20 MB of one letter (a huge tool argument)", "A".repeat(20 * MB)],
];

const control = work(sized(PROSE, MB));

for (const [why, text] of HOSTILE) {
  test(`bounded work: ${why} costs the tokenizer no more than 1 MB of prose does`, () => {
    const w = work(text);
    assert.ok(w.longest <= MAX_CHUNK_CHARS, `longest chunk ${w.longest}`);
    assert.ok(w.chars <= Math.max(EXACT_MAX_CHARS, SAMPLES * SAMPLE_CHARS), `characters tokenized: ${w.chars}`);
    assert.ok(w.squares <= 2 * control.squares, `quadratic work ${w.squares} vs prose ${control.squares}`);
  });
}

test("control: 1 MB of prose is sampled, not tokenized whole, with chunks under the cap", () => {
  assert.ok(control.longest <= MAX_CHUNK_CHARS);
  assert.ok(control.chars <= SAMPLES * SAMPLE_CHARS);
  assert.ok(control.calls >= SAMPLES);
});

test("chunks join back to the text, and a surrogate pair is never split", () => {
  for (const text of [PROSE.slice(0, 50_000), "😀".repeat(3000), `a${"😀".repeat(3000)}`, "A".repeat(5000)]) {
    const chunks = [...chunksOf(text)];
    assert.equal(chunks.join(""), text);
    for (const c of chunks) assert.ok(!/[\ud800-\udbff]$/.test(c), "no chunk ends inside a pair");
  }
});

test("the real counter: 1 MB of one letter and 20 MB of one letter are counted (the old tokenizer path took minutes)", { timeout: 120_000 }, () => {
  const one = countTokens("A".repeat(MB));
  assert.ok(one > MB / 16 && one < MB, `plausible count ${one}`);
  const twenty = countTokens("A".repeat(20 * MB));
  assert.ok(twenty > 15 * one && twenty < 25 * one, `scales with the size: ${twenty} vs ${one}`);
});

const CLOSE: Array<[string, string, number]> = [
  ["prose under the exact limit: chunking at spaces keeps the count exact", PROSE.slice(0, 60_000), 0.002],
  ["all the docs (estimated from samples)", PROSE, 0.05],
  ["JSON of a tool result (estimated)", JSON.stringify(Array.from({ length: 4000 }, (_, i) => ({ id: i, name: `file-${i}.txt`, size: i * 37, dir: i % 7 === 0 }))), 0.05],
];

for (const [why, text, tolerance] of CLOSE) {
  test(`close to the exact count: ${why}`, () => {
    const want = exact(text);
    const got = countTokens(text);
    assert.ok(Math.abs(got - want) <= tolerance * want + 1, `got ${got}, exact ${want} (${text.length} chars)`);
  });
}

test("a 1 MB tool result of one letter is cut to its head and tail", { timeout: 120_000 }, () => {
  const output = "A".repeat(MB);
  const messages = [user("read it"), assistant(toolUse("t", "web.fetch", {})), user(toolResult("t", output))];
  const r = fitToBudget(messages, { budget: 1_000_000, keepHeadTail: { head: 60, tail: 30 } });
  assert.equal(r.truncated, 1);
  const cut = r.messages[2]?.content[0] as { content: string };
  assert.match(cut.content, /^A+\n\[… [\d,]+ tokens \([\d,]+ characters\) cut from the middle of this output …\]\nA+$/);
  assert.ok(cut.content.length < 5000, `cut to about 90 tokens of A: ${cut.content.length} chars`);
});

test("control: a short tool result is left whole", () => {
  const messages = [user("read it"), assistant(toolUse("t", "web.fetch", {})), user(toolResult("t", "A".repeat(50)))];
  const r = fitToBudget(messages, { budget: 1_000_000, keepHeadTail: { head: 60, tail: 30 } });
  assert.equal(r.truncated, 0);
});
