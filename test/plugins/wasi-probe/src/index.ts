// A plugin that reaches the outside only through WASI 0.2 (no clawhive:host import at all):
// files through wasi:filesystem, requests through fetch (wasi:http), output through console
// (wasi:cli/stdout), so tests see clawhive's own WASI implementation route each effect.
import { getDirectories } from "wasi:filesystem/preopens@0.2.12";
import { getEnvironment, getArguments } from "wasi:cli/environment@0.2.12";
import { exit } from "wasi:cli/exit@0.2.12";
import { get as configGet, getAll as configGetAll } from "wasi:config/store@0.2.0-draft";

type Descriptor = ReturnType<typeof getDirectories>[number][0];
const tools = ["env", "print", "flood", "clock", "preopens", "read", "write", "list", "fetch", "exit", "config", "echo"];

function fail(e: unknown): never {
  const payload = e && typeof e === "object" && "payload" in e ? (e as { payload: unknown }).payload : String(e);
  throw { tag: "failed", val: JSON.stringify(payload) };
}

/** The preopen named `mount` (or the first), and `path` relative to it. */
function root(args: Record<string, unknown>): Descriptor {
  const dirs = getDirectories();
  const found = dirs.find(([, name]) => name === args.mount) ?? dirs[0];
  if (!found) fail("no preopens");
  return found[0];
}

function openFile(args: Record<string, unknown>, write: boolean): Descriptor {
  const flags = write ? { write: true } : { read: true };
  const open = write ? { create: true, truncate: true } : {};
  return root(args).openAt({}, String(args.path), open, flags);
}

export const tools_ = {
  describe() {
    return tools.map((name) => ({
      name,
      description: name,
      inputSchema: '{"type":"object"}',
      capabilities: name === "write" ? ["fs.write"] : ["read", "list", "preopens"].includes(name) ? ["fs.read"] : name === "fetch" ? ["http.fetch"] : ["print", "flood"].includes(name) ? ["log"] : [],
      risk: (name === "write" ? "guarded" : "safe") as "safe" | "guarded" | "unsafe",
    }));
  },
  async call(name: string, input: string): Promise<string> {
    const args = JSON.parse(input) as Record<string, unknown>;
    switch (name) {
      case "env":
        return JSON.stringify({ env: getEnvironment(), args: getArguments(), region: configGet("region") ?? null, missing: configGet("missing") ?? null });
      case "print":
        console.log(String(args.text));
        return "{}";
      case "flood": {
        const line = "x".repeat(1023);
        for (let i = 0; i < Number(args.lines); i++) console.log(line);
        return "{}";
      }
      case "clock":
        return JSON.stringify({ now: Date.now(), random: Math.random(), bytes: Array.from(crypto.getRandomValues(new Uint8Array(4))) });
      case "preopens":
        return JSON.stringify(getDirectories().map(([, path]) => path));
      case "read":
        try {
          const file = openFile(args, false);
          const [bytes] = file.read(1_000_000n, 0n);
          return JSON.stringify({ text: new TextDecoder().decode(bytes) });
        } catch (e) {
          return fail(e);
        }
      case "write":
        try {
          const file = openFile(args, true);
          const stream = file.writeViaStream(0n);
          stream.blockingWriteAndFlush(new TextEncoder().encode(String(args.text)));
          return "{}";
        } catch (e) {
          return fail(e);
        }
      case "list":
        try {
          const dir = args.path ? root(args).openAt({}, String(args.path), { directory: true }, { read: true }) : root(args);
          const entries = dir.readDirectory();
          const names: string[] = [];
          for (let e = entries.readDirectoryEntry(); e; e = entries.readDirectoryEntry()) names.push(`${e.name}:${e.type}`);
          return JSON.stringify(names.sort());
        } catch (e) {
          return fail(e);
        }
      case "fetch":
        try {
          const response = await fetch(String(args.url), { method: String(args.method ?? "GET"), headers: (args.headers as Record<string, string>) ?? {} });
          return JSON.stringify({ status: response.status, body: (await response.text()).slice(0, 2000) });
        } catch (e) {
          return fail(e);
        }
      case "config":
        // One key (absent: null), or every key the run serves; a value that could not be read is the error case.
        try {
          return JSON.stringify(typeof args.key === "string" ? { value: configGet(args.key) ?? null } : { all: configGetAll() });
        } catch (e) {
          return fail(e);
        }
      case "echo":
        // Its input's `value` back as its output (`error`: as its error): what a plugin that
        // kept a secret may hand out, spelled as the test writes it.
        if (typeof args.error === "string") throw { tag: "failed", val: args.error };
        return JSON.stringify(args.value ?? null);
      case "exit":
        exit({ tag: "err", val: undefined });
        return "{}";
      default:
        throw { tag: "not-found", val: `no tool ${name}` };
    }
  },
};
export { tools_ as tools };
