/**
 * The per-instance WASI implementation on its own, over a recording bridge: paths resolved
 * against their preopen before any host call, allocations bounded before they happen, stdout
 * capped, exit a trap. Each refusal beside a control that passes.
 */
import assert from "node:assert/strict";
import { describe, it, test } from "node:test";
import type { HostResponse } from "../../runtime/sandbox/protocol.js";
import { cliImports, GuestExit, MAX_STDIO_BYTES } from "../../runtime/sandbox/wasi/cli.js";
import type { WasiInstanceContext } from "../../runtime/sandbox/wasi/context.js";
import { filesystemImports, MAX_WASI_FILE_BYTES, type Descriptor } from "../../runtime/sandbox/wasi/filesystem.js";
import { Fields, httpImports, MAX_OUTGOING_BODY_BYTES, OutgoingRequest } from "../../runtime/sandbox/wasi/http.js";
import { PREVIEW1_SERVED, preview1Imports } from "../../runtime/sandbox/wasi/preview1.js";
import { socketsImports } from "../../runtime/sandbox/wasi/sockets.js";
import type { OutputStream } from "../../runtime/sandbox/wasi/streams.js";
import { poll } from "../../runtime/sandbox/wasi/streams.js";

/** A bridge over an in-memory tree under /work, recording every host call. */
function fakeContext(files: Record<string, string> = { "/work/a.txt": "alpha" }) {
  const calls: Array<[string, string, unknown[]]> = [];
  const dirs = new Set(["/work", "/work/sub"]);
  const stored = new Map(Object.entries(files).map(([k, v]) => [k, new Uint8Array(Buffer.from(v))]));
  const hostCall = (iface: string, fn: string, args: unknown[]): HostResponse => {
    calls.push([iface, fn, args]);
    const path = String(args[0]);
    if (iface === "log") return { ok: true, value: undefined };
    // A binding that serves no config refuses it, as an unbound instance's would.
    if (iface === "config") return { ok: false, error: { tag: "denied", val: { capability: "config", reason: "unbound-instance", message: "unbound" } } };
    if (fn === "mounts") return { ok: true, value: [{ guest: "/work", mode: "rw" }] };
    if (fn === "stat") {
      if (dirs.has(path)) return { ok: true, value: { kind: "directory", size: 0n, modifiedMs: 0n } };
      const file = stored.get(path);
      return file ? { ok: true, value: { kind: "file", size: BigInt(file.byteLength), modifiedMs: 0n } } : { ok: false, error: { tag: "not-found", val: path } };
    }
    if (fn === "read") return stored.has(path) ? { ok: true, value: stored.get(path)! } : { ok: false, error: { tag: "not-found", val: path } };
    if (fn === "write") {
      stored.set(path, args[1] as Uint8Array<ArrayBuffer>);
      return { ok: true, value: undefined };
    }
    return { ok: false, error: { tag: "io", val: "not served" } };
  };
  const context: WasiInstanceContext = { hostCall, grant: { env: { ONLY: "this" }, config: { k: "v" }, args: ["plugin"] } };
  return { context, calls, stored };
}

function preopen(context: WasiInstanceContext): Descriptor {
  const [[dir]] = (filesystemImports(context)["wasi:filesystem/preopens"]!.getDirectories as () => Array<[Descriptor, string]>)() as [[Descriptor, string]];
  return dir;
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return "(nothing thrown)";
}

describe("paths are resolved against their preopen before any host call", () => {
  const rows: Array<{ path: string; refused?: string; reaches?: string }> = [
    { path: "a.txt", reaches: "/work/a.txt" },
    { path: "sub/../a.txt", reaches: "/work/a.txt" },
    { path: "./sub/./../a.txt", reaches: "/work/a.txt" },
    { path: "..", refused: "not-permitted" },
    { path: "../work/a.txt", refused: "not-permitted" },
    { path: "sub/../../etc/passwd", refused: "not-permitted" },
    { path: "/etc/passwd", refused: "not-permitted" },
    { path: "/work/a.txt", refused: "not-permitted" },
    { path: "a.txt\0.png", refused: "not-permitted" },
    { path: "missing.txt", refused: "no-entry" },
  ];
  for (const row of rows) {
    it(`${JSON.stringify(row.path)} → ${row.refused ?? row.reaches}`, () => {
      const { context, calls } = fakeContext();
      const dir = preopen(context);
      calls.length = 0;
      if (row.refused) {
        assert.equal(thrown(() => dir.openAt({}, row.path, {}, { read: true })), row.refused);
        if (row.refused === "not-permitted") assert.deepEqual(calls, [], "no host call");
      } else {
        const file = dir.openAt({}, row.path, {}, { read: true });
        assert.equal(Buffer.from(file.read(100n, 0n)[0]).toString(), "alpha");
        assert.ok(calls.every(([, , args]) => args[0] === row.reaches), JSON.stringify(calls));
      }
    });
  }
});

describe("allocations are bounded before they happen", () => {
  it("control: a write at a small offset grows the file", () => {
    const { context, stored } = fakeContext();
    const file = preopen(context).openAt({}, "a.txt", {}, { read: true, write: true });
    file.write(new Uint8Array(Buffer.from("!")), 10n);
    assert.equal(stored.get("/work/a.txt")!.byteLength, 11);
  });
  for (const [name, act] of [
    ["a write at a huge offset", (f: Descriptor) => f.write(new Uint8Array(1), 1n << 40n)],
    ["a write just past the cap", (f: Descriptor) => f.write(new Uint8Array(1), BigInt(MAX_WASI_FILE_BYTES))],
    ["set-size to a huge size", (f: Descriptor) => f.setSize(1n << 40n)],
  ] as const) {
    it(`${name} is file-too-large, with no host write`, () => {
      const { context, calls } = fakeContext();
      const file = preopen(context).openAt({}, "a.txt", {}, { read: true, write: true });
      assert.equal(thrown(() => act(file)), "file-too-large");
      assert.ok(!calls.some(([, fn]) => fn === "write"));
    });
  }
  it("an outgoing body past the cap fails its stream; a small one is sent (control)", () => {
    const { context } = fakeContext();
    httpImports(context);
    const request = new OutgoingRequest(new Fields());
    const stream = request.body().write();
    stream.write(new Uint8Array(65536));
    let failure: unknown = "(nothing thrown)";
    for (let sent = 65536; sent <= MAX_OUTGOING_BODY_BYTES && failure === "(nothing thrown)"; sent += 65536) failure = thrown(() => stream.write(new Uint8Array(65536)));
    assert.equal((failure as { tag: string }).tag, "last-operation-failed");
    // Control: a request within the cap becomes the proxy's request record with its body.
    const small = new OutgoingRequest(new Fields());
    small.setAuthority("api.test");
    small.body().write().write(new Uint8Array(Buffer.from("hi")));
    assert.deepEqual(small.toHostRequest(undefined), { method: "GET", url: "https://api.test/", headers: [], body: new Uint8Array(Buffer.from("hi")), timeoutMs: undefined, followRedirects: false });
  });
  it("header fields refuse CR/LF and bad names; a plain one is kept (control)", () => {
    const fields = new Fields();
    fields.append("x-ok", new Uint8Array(Buffer.from("yes")));
    assert.equal((thrown(() => fields.append("x-bad", new Uint8Array(Buffer.from("a\r\nhost: evil")))) as { tag: string }).tag, "invalid-syntax");
    assert.equal((thrown(() => fields.append("bad name", new Uint8Array(1))) as { tag: string }).tag, "invalid-syntax");
    assert.deepEqual(fields.list(), [{ name: "x-ok", value: "yes" }]);
  });
});

test("stdout is capped per instance: a flood costs a bounded number of host calls", () => {
  const { context, calls } = fakeContext();
  const stdout = (cliImports(context)["wasi:cli/stdout"]!.getStdout as () => OutputStream)();
  const line = new Uint8Array(Buffer.from(`${"y".repeat(99)}\n`));
  for (let i = 0; i < 100_000; i++) stdout.blockingWriteAndFlush(line);
  const logged = calls.filter(([iface]) => iface === "log");
  assert.ok(logged.length <= MAX_STDIO_BYTES / 100 + 2, `${logged.length} log calls`);
  assert.match(String(logged.at(-1)![2][1]), /output over \d+ bytes dropped/);
});

test("the environment, args and config are the grant; exit traps", () => {
  const { context } = fakeContext();
  const cli = cliImports(context);
  assert.deepEqual((cli["wasi:cli/environment"]!.getEnvironment as () => unknown)(), [["ONLY", "this"]]);
  assert.deepEqual((cli["wasi:cli/environment"]!.getArguments as () => unknown)(), ["plugin"]);
  assert.equal((cli["wasi:config/store"]!.get as (k: string) => unknown)("k"), "v");
  assert.equal((cli["wasi:config/store"]!.get as (k: string) => unknown)("PATH"), undefined);
  assert.ok(thrown(() => (cli["wasi:cli/exit"]!.exit as (s: unknown) => void)({ tag: "ok" })) instanceof GuestExit);
  assert.throws(() => poll([]), /block forever/);
});

test("wasi:config/store asks the run; refused, only the plugin's defaults; a failed read is the guest's error", () => {
  const answers: Array<{ name: string; host: HostResponse; get: unknown; all: unknown }> = [
    { name: "control: the run's value (over the default)", host: { ok: true, value: "from-run" }, get: "from-run", all: undefined },
    { name: "control: the run says absent", host: { ok: true, value: null }, get: undefined, all: undefined },
    { name: "refused (no run): the default alone", host: { ok: false, error: { tag: "denied", val: { capability: "config", reason: "no-tool-call", message: "" } } }, get: "v", all: [["k", "v"]] },
    { name: "a secret that could not be read: upstream error, never the default", host: { ok: false, error: { tag: "io", val: "secret gone" } }, get: { tag: "upstream", val: "secret gone" }, all: { tag: "upstream", val: "secret gone" } },
  ];
  for (const row of answers) {
    const context: WasiInstanceContext = { hostCall: (iface) => (iface === "config" ? row.host : { ok: true, value: undefined }), grant: { env: {}, config: { k: "v" }, args: [] } };
    const store = cliImports(context)["wasi:config/store"]!;
    const get = (() => { try { return (store.get as (k: string) => unknown)("k"); } catch (e) { return e; } })();
    assert.deepEqual(get, row.get, row.name);
    if (row.all !== undefined) {
      const all = (() => { try { return (store.getAll as () => unknown)(); } catch (e) { return e; } })();
      assert.deepEqual(all, row.all, row.name);
    }
  }
});

test("preview1's socket functions are served refused: each a host call on record, ENOTSOCK to the guest", () => {
  assert.ok(PREVIEW1_SERVED.has("fd_write") && PREVIEW1_SERVED.has("path_open"));
  const names = ["sock_accept", "sock_recv", "sock_send", "sock_shutdown"];
  assert.deepEqual([...PREVIEW1_SERVED].filter((n) => n.startsWith("sock_")).sort(), names);
  const { context, calls } = fakeContext();
  const p1 = preview1Imports(context, { memory: undefined }) as Record<string, () => number>;
  for (const name of names) assert.equal(p1[name]!(), 57, name);
  assert.deepEqual(calls, names.map((n) => ["sockets", `preview1.${n}`, []]));
});

describe("wasi:sockets: every call refused on record, nothing opened", () => {
  const { context, calls } = fakeContext();
  const sockets = socketsImports(context);
  const fn = (iface: string, name: string) => sockets[`wasi:sockets/${iface}`]![name] as (...a: unknown[]) => unknown;
  const thrown = (body: () => unknown): unknown => {
    try {
      body();
    } catch (error) {
      return error;
    }
    return "no error";
  };
  it("creating a socket or resolving a name is access-denied (the WIT error-code case, thrown as jco lowers it)", () => {
    calls.length = 0;
    const network = fn("instance-network", "instanceNetwork")();
    assert.ok(network instanceof (sockets["wasi:sockets/network"]!.Network as new () => object));
    assert.equal(thrown(() => fn("tcp-create-socket", "createTcpSocket")("ipv4")), "access-denied");
    assert.equal(thrown(() => fn("udp-create-socket", "createUdpSocket")("ipv6")), "access-denied");
    assert.equal(thrown(() => fn("ip-name-lookup", "resolveAddresses")(network, "x".repeat(1000))), "access-denied");
    assert.deepEqual(calls.map(([iface, f]) => `${iface}.${f}`), [
      "sockets.instance-network.instance-network",
      "sockets.tcp-create-socket.create-tcp-socket",
      "sockets.udp-create-socket.create-udp-socket",
      "sockets.ip-name-lookup.resolve-addresses",
    ]);
    // The looked-up name is kept for the record, bounded.
    assert.equal((calls[3]![2][0] as string).length, 253);
  });
  it("a socket's methods (no guest can hold one) refuse too; what cannot fail answers inert", () => {
    calls.length = 0;
    const Tcp = sockets["wasi:sockets/tcp"]!.TcpSocket as new () => Record<string, () => unknown>;
    const socket = new Tcp();
    assert.equal(thrown(() => socket.startConnect!()), "not-supported");
    assert.equal(socket.isListening!(), false);
    assert.equal(fn("network", "networkErrorCode")(), undefined);
    assert.deepEqual(calls.map(([, f]) => f), ["tcp.tcp-socket.start-connect", "tcp.tcp-socket.is-listening", "network.network-error-code"]);
  });
});
