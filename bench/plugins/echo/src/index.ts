// Minimal on purpose: describe makes no host call, so its core module can also be
// instantiated with stub imports for the raw-wasm floor.
import { mounts } from "clawhive:host/fs@0.1.1";
import { set } from "clawhive:host/kv@0.1.1";

const descriptors = [
  { name: "echo", description: "Returns its input.", inputSchema: '{"type":"object"}', capabilities: [] as string[], risk: "safe" as const },
  { name: "hostloop", description: "Makes n host calls.", inputSchema: '{"type":"object"}', capabilities: ["fs.read"], risk: "safe" as const },
  { name: "kvloop", description: "Makes n effect host calls (kv set).", inputSchema: '{"type":"object"}', capabilities: ["kv"], risk: "safe" as const },
];

export const tools = {
  describe() {
    return descriptors;
  },
  call(name: string, input: string): string {
    if (name === "echo") return input;
    if (name === "hostloop") {
      const n = Number((JSON.parse(input) as { n?: number }).n ?? 1);
      let seen = 0;
      for (let i = 0; i < n; i++) seen += mounts().length;
      return JSON.stringify({ n, seen });
    }
    if (name === "kvloop") {
      const n = Number((JSON.parse(input) as { n?: number }).n ?? 1);
      const value = new Uint8Array([1, 2, 3, 4]);
      for (let i = 0; i < n; i++) set(`k${i % 8}`, value);
      return JSON.stringify({ n });
    }
    throw { tag: "not-found", val: `no tool ${name}` };
  },
};
