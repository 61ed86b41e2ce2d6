#!/usr/bin/env node
// `npm test`'s runner: every compiled test file under dist/test, each in its own process as
// `node --test` runs them, but the slowest files first. `node --test` starts files in name order,
// so a slow end-to-end suite named late (runs/chaos, cli/chat, …) started when the others were
// done and the run waited for it alone. Each file's duration is recorded after a run
// (.clawhive/test-durations.json) and orders the next one; test/durations.json (committed, from a
// full run) orders a fresh clone's first run. Files given as arguments run alone, in that order.
// CLAWHIVE_TEST_CONCURRENCY sets how many files run at once. The default is one more than the
// cores (at least 3): a file waits part of its time (servers, children, leases running out), and on
// two cores the whole run kept them 88 % busy with two files at once, 97 % with three.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join, relative } from "node:path";
import { run } from "node:test";
import { spec, tap } from "node:test/reporters";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const recorded = join(root, ".clawhive", "test-durations.json");
const committed = join(root, "test", "durations.json");

function testFiles(dir) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...testFiles(path));
    else if (entry.name.endsWith(".test.js")) found.push(path);
  }
  return found;
}

function durations(path) {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return {};
  }
}

const concurrencyText = process.env.CLAWHIVE_TEST_CONCURRENCY ?? String(Math.max(3, availableParallelism() + 1));
const concurrency = Number(concurrencyText);
if (!Number.isInteger(concurrency) || concurrency < 1) {
  process.stderr.write(`CLAWHIVE_TEST_CONCURRENCY: expected a whole number of files to run at once, got ${JSON.stringify(concurrencyText)}\n`);
  process.exit(2);
}

const named = process.argv.slice(2);
const known = { ...durations(committed), ...durations(recorded) };
const key = (file) => relative(root, file);
// A file never timed counts as a slow one: it may be a new end-to-end suite.
const expected = (file) => known[key(file)] ?? 30;
const files = named.length > 0 ? named.map((f) => join(process.cwd(), f)) : testFiles(join(root, "dist", "test")).sort((a, b) => expected(b) - expected(a) || a.localeCompare(b));
if (files.length === 0) {
  process.stderr.write("no test files under dist/test: run `npm run build` first\n");
  process.exit(2);
}

const spent = {};
// Each failure, named again after the report: CI shows a run's output only in part, and a
// "not ok" in the middle of thousands of lines is easily not the part shown.
const failures = [];
const stream = run({ files, concurrency });
stream.on("test:fail", (event) => {
  if (event.details?.error?.failureType === "subtestsFailed") return;
  const error = event.details?.error;
  const cause = error?.cause instanceof Error ? error.cause.message : String(error?.cause ?? error?.message ?? "");
  failures.push({ file: event.file === undefined ? "?" : key(event.file), name: event.name, cause: cause.split("\n").slice(0, 40).map((l) => (l.length > 400 ? `${l.slice(0, 400)}…` : l)).join("\n") });
});
// A file's wall time, process start to exit: what its place in the order is about.
const started = new Map();
stream.on("test:dequeue", (event) => {
  if (event.file !== undefined && event.name === event.file) started.set(event.file, performance.now());
});
stream.on("test:complete", (event) => {
  if (event.file === undefined || event.name !== event.file || !started.has(event.file)) return;
  spent[key(event.file)] = (performance.now() - started.get(event.file)) / 1000;
});
stream.once("end", () => {
  if (named.length === 0) {
    mkdirSync(join(root, ".clawhive"), { recursive: true });
    const rounded = Object.fromEntries(Object.entries(spent).sort().map(([file, s]) => [file, Math.round(s * 10) / 10]));
    writeFileSync(recorded, `${JSON.stringify(rounded, null, 1)}\n`);
  }
});
const reporter = process.stdout.isTTY ? stream.compose(new spec()) : stream.compose(tap);
reporter.pipe(process.stdout);
reporter.on("end", () => {
  if (failures.length > 0) {
    const lines = [`${failures.length} failed:`];
    for (const f of failures) lines.push(`${f.file}: ${f.name}`, ...f.cause.split("\n").map((l) => `    ${l}`));
    process.stdout.write(`${lines.map((l) => `# ${l}`).join("\n")}\n`);
  }
  process.exitCode = failures.length > 0 ? 1 : 0;
});
