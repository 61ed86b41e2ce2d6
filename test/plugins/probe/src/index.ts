// A deliberately raw plugin (no SDK) so that tests see the sandbox's own behaviour: real traps,
// real runaway loops, real memory growth. `describe` makes a host call, which must be refused
// because describe runs on an instance that has no binding.
import { mounts, read, write } from "clawhive:host/fs@0.1.1";
import { write as log } from "clawhive:host/log@0.1.1";
import { get as kvGet, set as kvSet } from "clawhive:host/kv@0.1.1";

let counter = 0;
let describeProbe = "not-run";

const tools = ["echo", "count", "read", "write", "mounts", "loop", "trap", "bomb", "big", "work", "log", "kvset", "kvget", "readthen"];

function payloadOf(e: unknown): unknown {
  return e && typeof e === "object" && "payload" in e ? (e as { payload: unknown }).payload : String(e);
}

export const tools_ = {
  describe() {
    try {
      read("/probe/describe.txt");
      describeProbe = "allowed";
    } catch (e) {
      describeProbe = JSON.stringify(payloadOf(e));
    }
    return tools.map((name) => ({
      name,
      description: name === "echo" ? `echo (describe host call: ${describeProbe})` : name,
      inputSchema: '{"type":"object"}',
      capabilities: name === "write" ? ["fs.write"] : name === "read" || name === "mounts" || name === "readthen" ? ["fs.read"] : name === "log" ? ["log"] : name.startsWith("kv") ? ["kv"] : [],
      risk: (name === "write" ? "guarded" : "safe") as "safe" | "guarded" | "unsafe",
    }));
  },
  call(name: string, input: string): string {
    counter++;
    const args = JSON.parse(input) as Record<string, unknown>;
    switch (name) {
      case "echo":
        return input;
      case "count":
        return JSON.stringify({ counter, describeProbe });
      case "read":
        try {
          return JSON.stringify({ text: new TextDecoder().decode(read(String(args.path))) });
        } catch (e) {
          throw { tag: "failed", val: JSON.stringify(payloadOf(e)) };
        }
      case "write":
        try {
          write(String(args.path), new TextEncoder().encode(String(args.text)));
          return "{}";
        } catch (e) {
          throw { tag: "failed", val: JSON.stringify(payloadOf(e)) };
        }
      case "mounts":
        return JSON.stringify(mounts());
      case "loop":
        for (;;) counter++;
      case "trap":
        throw new Error("deliberate trap");
      case "bomb": {
        const hold: Uint8Array[] = [];
        for (;;) hold.push(new Uint8Array(1 << 20).fill(1));
      }
      case "big":
        return "x".repeat(Number(args.bytes ?? 1024));
      case "work": {
        let x = 0;
        for (let i = 0; i < Number(args.n ?? 1000); i++) x = (x * 31 + i) % 1000003;
        return JSON.stringify({ x });
      }
      case "log":
        // `times` lines in one call: a flood, as one ToolCall.
        for (let i = 0; i < Number(args.times ?? 1); i++) log("info", String(args.message ?? ""));
        return "{}";
      case "kvset":
        try {
          kvSet(String(args.key), new TextEncoder().encode(String(args.value)));
          return "{}";
        } catch (e) {
          throw { tag: "failed", val: JSON.stringify(payloadOf(e)) };
        }
      case "kvget": {
        const value = kvGet(String(args.key));
        return JSON.stringify({ value: value === undefined ? null : new TextDecoder().decode(value) });
      }
      case "readthen": {
        // A read, then the ToolCall ends as asked: a trap, a loop until its deadline, a tool error.
        const text = new TextDecoder().decode(read(String(args.path)));
        if (args.then === "trap") throw new Error("deliberate trap after a read");
        if (args.then === "loop") for (;;) counter++;
        if (args.then === "fail") throw { tag: "failed", val: `failed after reading: ${text}` };
        return JSON.stringify({ text });
      }
      default:
        throw { tag: "not-found", val: `no tool ${name}` };
    }
  },
};
export { tools_ as tools };
