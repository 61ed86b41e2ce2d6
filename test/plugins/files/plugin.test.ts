import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { FakeComponentError } from "./fake-host.js";
import type { FsFunction } from "./fake-host.js";
import { assertToolError, callErr, callOk, filesPlugin, repoRoot } from "./harness.js";

interface PluginManifest {
  name: string;
  version: string;
  capabilities: string[];
  world: string;
  tools: Record<string, { risk: string }>;
}

function manifest(): PluginManifest {
  return JSON.parse(readFileSync(join(repoRoot(), "plugins/files/plugin.json"), "utf8")) as PluginManifest;
}

describe("files plugin: contract", () => {
  it("describes the tools its manifest declares, with the same risks and capabilities within it", async () => {
    const { tools } = await filesPlugin();
    const declared = manifest();
    const described = tools.describe();
    assert.deepEqual(described.map((d) => d.name).sort(), Object.keys(declared.tools).sort());
    for (const tool of described) {
      assert.equal(tool.risk, declared.tools[tool.name]?.risk, `risk of ${tool.name}`);
      for (const capability of tool.capabilities) assert.ok(declared.capabilities.includes(capability), capability);
      const schema = JSON.parse(tool.inputSchema) as { type: string; required?: string[]; additionalProperties?: boolean };
      assert.equal(schema.type, "object");
      assert.equal(schema.additionalProperties, false);
      assert.ok(tool.description.length > 20);
    }
  });

  it("marks writing tools guarded and reading tools safe", async () => {
    const { tools } = await filesPlugin();
    const byName = new Map(tools.describe().map((d) => [d.name, d]));
    for (const name of ["write_file", "edit_file"]) {
      assert.equal(byName.get(name)?.risk, "guarded");
      assert.ok(byName.get(name)?.capabilities.includes("fs.write"));
    }
    for (const name of ["read_file", "list_dir", "glob", "grep"]) {
      assert.equal(byName.get(name)?.risk, "safe");
      assert.deepEqual(byName.get(name)?.capabilities, ["fs.read"]);
    }
  });

  it("hands out fresh descriptors on every describe", async () => {
    const { tools } = await filesPlugin();
    const first = tools.describe();
    first[0]?.capabilities.push("shell.exec");
    assert.ok(!tools.describe()[0]?.capabilities.includes("shell.exec"));
  });

  it("reports an unknown tool as not-found, naming the tools there are", async () => {
    const { tools } = await filesPlugin();
    assert.deepEqual(callErr(tools, "delete_everything", {}), {
      tag: "not-found",
      val: 'tool "delete_everything": this plugin has no such tool (tools: read_file, write_file, edit_file, list_dir, glob, grep)',
    });
  });

  const malformed: [string, string, RegExp][] = [
    ["text that is not JSON", "{path:", /^input: is not valid JSON: /],
    ["an array", "[]", /^input: must be a JSON object, got array$/],
    ["null", "null", /^input: must be a JSON object, got null$/],
    ["a string", '"/work/a"', /^input: must be a JSON object, got string$/],
  ];
  for (const [what, input, message] of malformed) {
    it(`rejects ${what} as input`, async () => {
      const { tools } = await filesPlugin();
      const error = callErr(tools, "read_file", input);
      assert.equal(error.tag, "invalid-input");
      assert.match(error.val as string, message);
    });
  }

  it("does not read an inherited property as a field", async () => {
    const { tools } = await filesPlugin();
    const error = callErr(tools, "read_file", '{"path":"/work/a","__proto__":{"offset":"x"},"toString":1}');
    assert.equal(error.tag, "invalid-input");
    assert.match(error.val as string, /"(__proto__|toString)": is not a field of this tool/);
  });

  it("turns each host-error case into its tool-error case", async () => {
    const cases: [FakeComponentError, unknown][] = [
      [
        new FakeComponentError({ tag: "denied", val: { capability: "fs.read", reason: "unbound-instance", message: "not bound" } }),
        { tag: "denied", val: { capability: "fs.read", reason: "unbound-instance", message: "not bound" } },
      ],
      [new FakeComponentError({ tag: "not-found", val: "gone" }), { tag: "not-found", val: "gone" }],
      [new FakeComponentError({ tag: "invalid-input", val: "bad path" }), { tag: "invalid-input", val: "bad path" }],
      [new FakeComponentError({ tag: "io", val: "disk on fire" }), { tag: "failed", val: "disk on fire" }],
    ];
    for (const [thrown, expected] of cases) {
      const { tools, fs } = await filesPlugin();
      fs.fault("read", () => {
        throw thrown;
      });
      assert.deepEqual(callErr(tools, "read_file", { path: "/work/a" }), expected);
    }
  });

  it("keeps only the denial's three fields, as strings", async () => {
    const { tools, fs } = await filesPlugin();
    fs.fault("read", () => {
      throw { payload: { tag: "denied", val: { capability: "fs.read", reason: 42, message: "m", secret: "x" } } };
    });
    assert.deepEqual(callErr(tools, "read_file", { path: "/work/a" }), {
      tag: "denied",
      val: { capability: "fs.read", reason: "42", message: "m" },
    });
  });
});

/**
 * Host misbehaviour no real host should show, and a plugin must survive without trapping. A
 * fallible host function's failure reaches the guest as its `host-error` (the host boundary of
 * the harness, as the worker's); the guest must turn every one into a tool error.
 */
const FAULTS: [string, (path: unknown) => unknown][] = [
  ["throws an Error", () => {
    throw new Error("boom");
  }],
  ["throws a TypeError", () => {
    throw new TypeError("not a function");
  }],
  ["throws a string", () => {
    throw "a string";
  }],
  ["throws undefined", () => {
    throw undefined;
  }],
  ["throws an object with a malformed payload", () => {
    throw { payload: { tag: "weird", val: 1 } };
  }],
  ["throws an object whose toString throws", () => {
    throw { toString: () => { throw new Error("no"); } };
  }],
];

/**
 * Answers the canonical ABI cannot carry: `mounts` has no error case, and a malformed value cannot
 * be lowered. jco's glue refuses them on the host side before the guest sees anything, so the
 * call fails as a trap does (the sandbox replaces the instance); the guest's memory is never
 * handed garbage. (What fails is the host's side: a glue TypeError, or the host-error the worker
 * throws for an infallible function.)
 */
const UNLOWERABLE: [string, FsFunction, (path: unknown) => unknown][] = [
  ["mounts throws", "mounts", () => {
    throw new Error("boom");
  }],
  ["read returns undefined", "read", () => undefined],
  ["listDir returns garbage", "listDir", () => ({ length: -1, name: 7 })],
];

const CALLS: [string, Record<string, unknown>][] = [
  ["read_file", { path: "/work/a.txt" }],
  ["write_file", { path: "/work/new/b.txt", content: "x" }],
  ["edit_file", { path: "/work/a.txt", old_text: "a", new_text: "b" }],
  ["list_dir", { path: "/work" }],
  ["glob", { pattern: "**/*" }],
  ["grep", { pattern: "a" }],
  ["grep", { pattern: "a", path: "a.txt" }],
];

/** The host functions with a `result<…, host-error>` (`mounts` has none). */
const FUNCTIONS: FsFunction[] = ["read", "write", "listDir", "stat", "mkdir"];

describe("files plugin: no Error ever escapes call", () => {
  for (const [fault, impl] of FAULTS) {
    it(`when a host function ${fault}`, async () => {
      for (const fn of FUNCTIONS) {
        for (const [name, input] of CALLS) {
          const { tools, fs } = await filesPlugin({ files: { "/work/a.txt": "a\n", "/work/sub/c.txt": "a\n" } });
          fs.fault(fn, impl);
          try {
            assert.equal(typeof tools.call(name, JSON.stringify(input)), "string");
          } catch (e) {
            assertToolError(e);
          }
        }
      }
    });
  }

  for (const [what, fn, impl] of UNLOWERABLE) {
    it(`refuses an answer the ABI cannot carry before the guest sees it: ${what}`, async () => {
      const { tools, fs } = await filesPlugin({ files: { "/work/a.txt": "a\n" } });
      fs.fault(fn, impl);
      const input = fn === "listDir" ? { path: "a" } : { path: "a.txt" };
      assert.throws(() => tools.call(fn === "listDir" ? "list_dir" : "read_file", JSON.stringify(input)), (e: unknown) => e instanceof Error || (e as { tag?: unknown }).tag === "io");
      // Control: a fresh instance over a well-behaved host serves the same call.
      const fresh = await filesPlugin({ files: { "/work/a.txt": "a\n", "/work/a/b": "" } });
      assert.equal(typeof fresh.tools.call(fn === "listDir" ? "list_dir" : "read_file", JSON.stringify(input)), "string");
    });
  }

  it("when the input is hostile", async () => {
    const inputs = ["", "{", "1e999", '{"path":{"toString":null}}', '{"path":["a"]}', `{"path":"${"/a".repeat(10_000)}"}`];
    const { tools } = await filesPlugin();
    for (const [name] of CALLS) {
      for (const input of inputs) {
        try {
          tools.call(name, input);
        } catch (e) {
          assertToolError(e);
        }
      }
    }
  });

  it("control: the same calls succeed on a well-behaved host", async () => {
    for (const [name, input] of CALLS) {
      const { tools } = await filesPlugin({ files: { "/work/a.txt": "a\n", "/work/sub/c.txt": "a\n" } });
      callOk(tools, name, input);
    }
  });
});
