/**
 * Every host operation is classified read or effect in host-proxies/durability.ts, so a new one
 * cannot slip through: the operations are gathered from where they are defined — the WIT of
 * `clawhive:host`, each proxy's host-function names, the Extism names, the calls the WASI and
 * Extism bridges make — and each must be in the table. (Unclassified would be an effect, the
 * safe side; the test makes the choice explicit.)
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { durabilityOf, HOST_OPERATIONS } from "../../host-proxies/durability.js";
import { extismHostFunction, HOST_FUNCTIONS } from "../../runtime/plugins/extism-abi.js";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";

const camel = (wit: string) => wit.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
const read = (...path: string[]) => readFileSync(join(PROJECT_ROOT, ...path), "utf8");
const classified = (op: string) => {
  const [iface, fn] = op.split(".") as [string, string];
  return Object.hasOwn(HOST_OPERATIONS, iface) && Object.hasOwn(HOST_OPERATIONS[iface]!, fn);
};

/** `iface.fn` of every `name: func(` in wit/host/*.wit, by the interface it is declared in. */
function witOperations(): string[] {
  const ops: string[] = [];
  for (const file of readdirSync(join(PROJECT_ROOT, "wit", "host")).filter((f) => f.endsWith(".wit"))) {
    let iface: string | undefined;
    for (const line of read("wit", "host", file).split("\n")) {
      const opened = /^\s*interface\s+([a-z][a-z0-9-]*)\s*\{/.exec(line);
      if (opened) iface = opened[1];
      const func = /^\s*([a-z][a-z0-9-]*)\s*:\s*func\(/.exec(line);
      if (func && iface) ops.push(`${iface}.${camel(func[1]!)}`);
    }
  }
  return ops;
}

/** Every name in a proxy's `*_HOST_FUNCTION_NAMES` list, and the keys of the log proxy's table. */
function proxyOperations(): string[] {
  const ops: string[] = [];
  for (const proxy of readdirSync(join(PROJECT_ROOT, "host-proxies"), { withFileTypes: true }).filter((d) => d.isDirectory())) {
    let text: string;
    try {
      text = read("host-proxies", proxy.name, "host-functions.ts");
    } catch {
      continue;
    }
    const list = /_HOST_FUNCTION_NAMES\s*=\s*\[([^\]]*)\]/.exec(text);
    for (const name of list?.[1]?.match(/"([A-Za-z]+)"/g) ?? []) ops.push(`${proxy.name}.${name.slice(1, -1)}`);
  }
  for (const name of read("host-proxies", "log", "proxy.ts").match(/^\s{4}([a-z][A-Za-z]*): async/gm) ?? []) ops.push(`log.${name.trim().split(":")[0]}`);
  return ops;
}

/** The calls the sandbox's bridges make: `hostCall("iface", "fn"` and the WASI filesystem's `call("fn"`. */
function bridgeOperations(): string[] {
  const ops: string[] = [];
  const dirs = [join("runtime", "sandbox"), join("runtime", "sandbox", "wasi")];
  for (const dir of dirs) {
    for (const file of readdirSync(join(PROJECT_ROOT, dir)).filter((f) => f.endsWith(".ts"))) {
      const text = read(dir, file);
      for (const m of text.matchAll(/hostCall\("([a-z]+)", "([A-Za-z]+)"/g)) ops.push(`${m[1]}.${m[2]}`);
      if (file === "filesystem.ts" || file === "filesystem-host.ts") for (const m of text.matchAll(/\.call\("([A-Za-z]+)"/g)) ops.push(`fs.${m[1]}`);
    }
  }
  return ops;
}

test("every host operation, wherever it is defined, is classified read or effect", () => {
  const wit = witOperations();
  const proxies = proxyOperations();
  const extism = Object.entries(HOST_FUNCTIONS).flatMap(([iface, fns]) => fns.map((wit) => `${iface}.${extismHostFunction(`${iface}_${wit.replaceAll("-", "_")}`)?.fn ?? wit}`));
  const bridges = bridgeOperations();
  // The readers see what they read: a known operation from each source.
  assert.ok(wit.includes("fs.listDir") && wit.includes("http.fetch"), `WIT: ${wit.join(", ")}`);
  assert.ok(proxies.includes("kv.listKeys") && proxies.includes("log.write"), `proxies: ${proxies.join(", ")}`);
  assert.ok(extism.includes("calendar.addEvent"), `Extism: ${extism.join(", ")}`);
  assert.ok(bridges.includes("config.get") && bridges.includes("fs.listDir") && bridges.includes("http.fetch"), `bridges: ${bridges.join(", ")}`);
  const all = [...new Set([...wit, ...proxies, ...extism, ...bridges, "mcp.call"])];
  assert.deepEqual(all.filter((op) => !classified(op)), [], "classify these in host-proxies/durability.ts");
});

test("the table names no operation that does not exist (a typo would leave the real one unclassified)", () => {
  const known = new Set([...witOperations(), ...proxyOperations(), ...bridgeOperations(), "mcp.call"]);
  const listed = Object.entries(HOST_OPERATIONS).flatMap(([iface, fns]) => Object.keys(fns).map((fn) => `${iface}.${fn}`));
  assert.deepEqual(listed.filter((op) => !known.has(op)), []);
});

const cases: Array<{ op: [string, string]; durability: "read" | "effect"; why: string }> = [
  { op: ["fs", "read"], durability: "read", why: "data only comes in" },
  { op: ["fs", "write"], durability: "effect", why: "state changes" },
  { op: ["kv", "get"], durability: "read", why: "a kv get" },
  { op: ["kv", "set"], durability: "effect", why: "a kv write" },
  { op: ["http", "fetch"], durability: "effect", why: "any egress, a GET included" },
  { op: ["fs", "walkAll"], durability: "effect", why: "an operation nobody classified" },
  { op: ["nosuch", "read"], durability: "effect", why: "an interface nobody classified" },
  { op: ["fs", "toString"], durability: "effect", why: "a prototype name is not a classification" },
  { op: ["__proto__", "read"], durability: "effect", why: "nor is a prototype interface" },
];

for (const { op, durability, why } of cases) {
  test(`${op.join(".")} is ${durability} (${why})`, () => {
    assert.equal(durabilityOf(...op), durability);
  });
}
