/**
 * The AssemblyScript schedule, shell and web plugins against their `clawhive:host` interfaces,
 * byte for byte through jco's glue: every field of a request lowered (none stays none), every
 * field of a result lifted, every host-error case kept, and memory flat over a long session.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { PROJECT_ROOT } from "../../../runtime/plugins/locations.js";
import { loadComponent, type LoadedComponent } from "./component.js";

interface Host {
  calls: unknown[][];
  next: { value?: unknown; error?: unknown };
}

async function plugin(name: string, iface: string, fns: string[], extra: Record<string, unknown> = {}): Promise<LoadedComponent & { host: Host }> {
  const host: Host = { calls: [], next: {} };
  const bound: Record<string, (...args: unknown[]) => unknown> = {};
  for (const fn of fns) {
    bound[fn] = (...args: unknown[]) => {
      host.calls.push([fn, ...args]);
      if (host.next.error !== undefined) throw host.next.error;
      return host.next.value;
    };
  }
  const loaded = await loadComponent(join(PROJECT_ROOT, "plugins", name), { [`clawhive:host/${iface}`]: bound, ...extra } as never);
  return { ...loaded, host };
}

const schedule = () => plugin("schedule", "schedule", ["list", "create", "cancel"]);
const shell = () => plugin("shell", "shell", ["exec"]);
// The web plugin also reads its search config (wasi:config/store); fetch_page never asks for it.
const web = () => plugin("web", "http", ["fetch"], { "wasi:config/store": { get: () => undefined, getAll: () => [] } });

function callErr(p: LoadedComponent, name: string, input: string): { tag: string; val: unknown } {
  try {
    p.tools.call(name, input);
  } catch (e) {
    return (e as { payload: { tag: string; val: unknown } }).payload;
  }
  assert.fail(`${name} ${input}: expected a tool error`);
}

const info = (i: number, full: boolean) => ({
  id: `sch_${i}`, agent: "plänner", task: `task ${i} 🦀`, kind: full ? "cron" : "once",
  at: full ? undefined : "2026-12-01T09:00:00Z", cron: full ? "0 9 * * 1-5" : undefined,
  timezone: full ? "Europe/Stockholm" : undefined, until: full ? "2027-01-01T00:00:00Z" : undefined,
  maxRuns: full ? 4294967295 : undefined, runsSoFar: i, nextAt: full ? "2026-12-08T08:00:00Z" : undefined,
  status: "active", createdAt: "2026-12-07T10:00:00.000Z",
});
const infoOut = (s: ReturnType<typeof info>) => ({
  id: s.id, agent: s.agent, task: s.task, kind: s.kind, at: s.at ?? null, cron: s.cron ?? null, timezone: s.timezone ?? null,
  until: s.until ?? null, max_runs: s.maxRuns ?? null, runs_so_far: s.runsSoFar, next_at: s.nextAt ?? null, status: s.status, created_at: s.createdAt,
});

test("schedule.create: every field of the spec lowered in memory, none stays none; every field of the info lifted", async () => {
  const p = await schedule();
  const cases: Array<[Record<string, unknown>, unknown, ReturnType<typeof info>]> = [
    [{ agent: "a", task: "t", at: "2026-12-01T09:00:00Z" }, { agent: "a", task: "t", at: "2026-12-01T09:00:00Z", cron: undefined, timezone: undefined, until: undefined, maxRuns: undefined }, info(0, false)],
    [{ agent: "plänner", task: "ünï 🦀", cron: "0 9 * * 1-5", timezone: "Europe/Stockholm", until: "2027-01-01T00:00:00Z", max_runs: 4294967295 },
      { agent: "plänner", task: "ünï 🦀", at: undefined, cron: "0 9 * * 1-5", timezone: "Europe/Stockholm", until: "2027-01-01T00:00:00Z", maxRuns: 4294967295 }, info(7, true)],
  ];
  for (const [input, spec, answer] of cases) {
    p.host.calls.length = 0;
    p.host.next = { value: answer };
    assert.deepEqual(JSON.parse(p.tools.call("create_schedule", JSON.stringify(input))), { created: infoOut(answer) });
    assert.deepEqual(p.host.calls, [["create", spec]]);
  }
});

test("schedule.list and cancel: lists lifted in order, the bool kept; bad input makes no host call", async () => {
  const p = await schedule();
  p.host.next = { value: [info(1, false), info(2, true)] };
  assert.deepEqual(JSON.parse(p.tools.call("list_schedules", "{}")), { schedules: [infoOut(info(1, false)), infoOut(info(2, true))] });
  for (const answer of [true, false]) {
    p.host.next = { value: answer };
    assert.deepEqual(JSON.parse(p.tools.call("cancel_schedule", '{"id":"sch_é"}')), { id: "sch_é", cancelled: answer });
  }
  p.host.calls.length = 0;
  const bad: Array<[string, RegExp]> = [
    ['{"agent":"a","task":"t"}', /^at, cron: give exactly one/],
    ['{"agent":"a","task":"t","at":"x","cron":"y"}', /^at, cron: give exactly one/],
    ['{"agent":"a","task":"t","cron":"y","max_runs":0}', /^max_runs: expected a whole number of at least 1$/],
    ['{"agent":"a","task":"t","cron":"y","max_runs":4294967296}', /^max_runs: expected a whole number of at least 1$/],
  ];
  for (const [input, message] of bad) {
    const e = callErr(p, "create_schedule", input);
    assert.equal(e.tag, "invalid-input");
    assert.match(String(e.val), message);
  }
  assert.deepEqual(p.host.calls, []);
});

test("shell.exec: argv, cwd, stdin (as UTF-8 bytes) and timeout lowered; the result lifted, u64 counts past 2^53 as strings", async () => {
  const p = await shell();
  const result = (exitCode: number | undefined, signal: string | undefined, dropped: bigint) => ({
    exitCode, signal, timedOut: signal !== undefined, durationMs: 4294967295,
    stdout: { text: "out ✓\n", bytes: 7n, linesDropped: dropped }, stderr: { text: "", bytes: 0n, linesDropped: 0n },
  });
  const cases: Array<[Record<string, unknown>, unknown, ReturnType<typeof result>, Record<string, unknown>]> = [
    [{ argv: ["ls"] }, { argv: ["ls"], cwd: undefined, stdin: undefined, timeoutMs: undefined }, result(0, undefined, 0n),
      { exit_code: 0, signal: null, timed_out: false, duration_ms: 4294967295, stdout: "out ✓\n", stdout_lines_dropped: 0, stderr: "", stderr_lines_dropped: 0 }],
    [{ argv: ["grep", "-n", "å 🦀", ""], cwd: "/workspace/src", stdin: "héllo\n", timeout_ms: 4294967295 },
      { argv: ["grep", "-n", "å 🦀", ""], cwd: "/workspace/src", stdin: new Uint8Array(Buffer.from("héllo\n")), timeoutMs: 4294967295 }, result(-2147483648, undefined, 2n ** 53n),
      { exit_code: -2147483648, signal: null, timed_out: false, duration_ms: 4294967295, stdout: "out ✓\n", stdout_lines_dropped: "9007199254740992", stderr: "", stderr_lines_dropped: 0 }],
    [{ argv: ["sleep", "9"], stdin: "" }, { argv: ["sleep", "9"], cwd: undefined, stdin: new Uint8Array(0), timeoutMs: undefined }, result(undefined, "SIGKILL", 5n),
      { exit_code: null, signal: "SIGKILL", timed_out: true, duration_ms: 4294967295, stdout: "out ✓\n", stdout_lines_dropped: 5, stderr: "", stderr_lines_dropped: 0 }],
  ];
  for (const [input, request, answer, output] of cases) {
    p.host.calls.length = 0;
    p.host.next = { value: answer };
    assert.deepEqual(JSON.parse(p.tools.call("run_command", JSON.stringify(input))), output);
    assert.deepEqual(p.host.calls, [["exec", request]]);
  }
  p.host.calls.length = 0;
  for (const [input, message] of [['{"argv":[]}', /^input field "argv": expected a non-empty list of strings$/], ['{"argv":["ls",1]}', /^input field "argv": expected a non-empty list of strings$/], ['{"argv":["ls"],"timeout_ms":-1}', /^input field "timeout_ms"/]] as const) {
    const e = callErr(p, "run_command", input);
    assert.equal(e.tag, "invalid-input");
    assert.match(String(e.val), message);
  }
  assert.deepEqual(p.host.calls, []);
});

test("http.fetch: method, url, headers and max_bytes lowered; status, url, headers, body, truncated and redirects lifted", async () => {
  const p = await web();
  p.host.next = { value: { status: 206, url: "http://127.0.0.1/ü", headers: [{ name: "X-A", value: "1" }, { name: "Content-Type", value: "text/plain" }], body: new Uint8Array(Buffer.from("héllo")), truncated: true, redirects: 3 } };
  assert.deepEqual(JSON.parse(p.tools.call("fetch_page", '{"url":"http://127.0.0.1/a","max_bytes":9007199254740991}')),
    { url: "http://127.0.0.1/ü", status: 206, content_type: "text/plain", truncated: true, redirects: 3, content: "héllo" });
  p.host.next = { value: { status: 200, url: "u", headers: [], body: new Uint8Array(0), truncated: false, redirects: 0 } };
  assert.equal(JSON.parse(p.tools.call("fetch_page", '{"url":"u"}')).content, "");
  const accept = { name: "accept", value: "text/html, text/markdown;q=0.9, text/plain;q=0.8, */*;q=0.1" };
  const base = { method: "GET", headers: [accept], body: undefined, timeoutMs: undefined, followRedirects: undefined };
  assert.deepEqual(p.host.calls, [
    ["fetch", { ...base, url: "http://127.0.0.1/a", maxBytes: 9007199254740991n }],
    ["fetch", { ...base, url: "u", maxBytes: 2097152n }],
  ]);
});

const HOST_ERRORS: Array<[unknown, { tag: string; val: unknown }]> = [
  [{ tag: "denied", val: { capability: "c", reason: "r", message: "m ✗" } }, { tag: "denied", val: { capability: "c", reason: "r", message: "m ✗" } }],
  [{ tag: "not-found", val: "gone" }, { tag: "not-found", val: "gone" }],
  [{ tag: "invalid-input", val: "bad field" }, { tag: "invalid-input", val: "bad field" }],
  [{ tag: "io", val: "down" }, { tag: "failed", val: "down" }],
];

test("a host error of each case, in each binding, becomes the tool error of the same meaning; control: the next call succeeds", async () => {
  const plugins: Array<[LoadedComponent & { host: Host }, string, string, unknown]> = [
    [await schedule(), "list_schedules", "{}", []],
    [await schedule(), "create_schedule", '{"agent":"a","task":"t","at":"x"}', info(0, false)],
    [await schedule(), "cancel_schedule", '{"id":"x"}', true],
    [await shell(), "run_command", '{"argv":["ls"]}', { exitCode: 0, timedOut: false, durationMs: 1, stdout: { text: "", bytes: 0n, linesDropped: 0n }, stderr: { text: "", bytes: 0n, linesDropped: 0n } }],
    [await web(), "fetch_page", '{"url":"u"}', { status: 200, url: "u", headers: [], body: new Uint8Array(0), truncated: false, redirects: 0 }],
  ];
  for (const [p, tool, input, ok] of plugins) {
    for (const [thrown, expected] of HOST_ERRORS) {
      p.host.next = { error: thrown };
      assert.deepEqual(callErr(p, tool, input), expected, `${tool}: ${JSON.stringify(thrown)}`);
      p.host.next = { value: ok };
      assert.doesNotThrow(() => p.tools.call(tool, input), `${tool} after ${JSON.stringify(thrown)}`);
    }
  }
});

test("3,000 calls on each instance keep its memory flat", async () => {
  const page = "<h1>T</h1>" + "<p>para <a href='/x'>link</a> <b>bold</b></p>".repeat(200);
  const sessions: Array<[LoadedComponent & { host: Host }, () => void]> = [];
  const s = await schedule();
  sessions.push([s, () => { s.host.next = { value: [info(1, true), info(2, false)] }; s.tools.call("list_schedules", "{}"); }]);
  const sh = await shell();
  sessions.push([sh, () => { sh.host.next = { value: { exitCode: 0, timedOut: false, durationMs: 1, stdout: { text: "x".repeat(2000), bytes: 2000n, linesDropped: 0n }, stderr: { text: "e", bytes: 1n, linesDropped: 0n } } }; sh.tools.call("run_command", '{"argv":["ls","-la"],"stdin":"in"}'); }]);
  const w = await web();
  sessions.push([w, () => { w.host.next = { value: { status: 200, url: "u", headers: [{ name: "content-type", value: "text/html" }], body: new Uint8Array(Buffer.from(page)), truncated: false, redirects: 0 } }; w.tools.call("fetch_page", '{"url":"u"}'); }]);
  for (const [p, call] of sessions) {
    for (let i = 0; i < 1_000; i++) call();
    const settled = p.memoryBytes();
    for (let i = 0; i < 2_000; i++) call();
    assert.equal(p.memoryBytes(), settled, `memory grew from ${settled} to ${p.memoryBytes()} bytes`);
  }
});
