import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readComponentImports } from "../../../runtime/plugins/component-imports.js";
import { glueImportProblems, importProblems } from "../../../runtime/plugins/imports.js";

// Real components made by wasm-tools (through jco) from WIT written to fool a reader of printed
// WIT: import names in doc comments, inline interfaces, unversioned and foreign versions. The
// gate reads the binary's import section: what is imported is exactly what a host must provide.

const HOST = `package clawhive:host@0.1.0 {
  interface types { type path = string; }
  interface fs {
    /// import clawhive:host/shell@0.1.0;
    read: func(p: string) -> string;
  }
}`;

async function component(world: string, extra = ""): Promise<Uint8Array> {
  const { componentEmbed, componentNew } = await import("@bytecodealliance/jco");
  const wit = `package test:adv;\n\n${world}\n\n${extra}\n`;
  return componentNew(await componentEmbed({ witSource: wit, dummy: true, world: "root" }));
}

interface Row {
  name: string;
  world: string;
  extra?: string;
  capabilities: string[];
  imports: string[];
  /** A problem the gate must name; none for a control. */
  problem?: RegExp;
}

const rows: Row[] = [
  {
    name: "control: fs covered by fs.read, with a doc comment naming shell",
    world: `world root {\n  /// import clawhive:host/shell@0.1.0;\n  import clawhive:host/fs@0.1.0;\n  export run: func() -> string;\n}`,
    extra: HOST,
    capabilities: ["fs.read"],
    imports: ["clawhive:host/fs@0.1.0"],
  },
  {
    name: "an unlisted WASI package, hidden behind doc comments that name allowed interfaces",
    world: `world root {\n  /// import wasi:cli/environment@0.2.3;\n  import wasi:keyvalue/store@0.2.3;\n  export run: func() -> string;\n}`,
    extra: `package wasi:keyvalue@0.2.3 {\n  interface store {\n    /// import wasi:clocks/wall-clock@0.2.3;\n    open: func(host: string) -> u32;\n  }\n}`,
    capabilities: ["fs.read", "log", "http.fetch", "kv"],
    imports: ["wasi:keyvalue/store@0.2.3"],
    problem: /wasi:keyvalue\/store@0\.2\.3: outside the plugin contract/,
  },
  {
    name: "an inline interface named like a host interface",
    world: `world root {\n  import fs: interface {\n    read: func(p: string) -> string;\n  }\n  export run: func() -> string;\n}`,
    capabilities: ["fs.read"],
    imports: ["fs"],
    problem: /^fs: outside the plugin contract/,
  },
  {
    name: "a bare function whose name reads like an import",
    world: `world root {\n  import clawhive-host-fs: func() -> string;\n  export run: func() -> string;\n}`,
    capabilities: ["fs.read"],
    imports: ["clawhive-host-fs"],
    problem: /clawhive-host-fs: outside the plugin contract/,
  },
  {
    name: "the host interface unversioned",
    world: `world root {\n  import clawhive:host/fs;\n  export run: func() -> string;\n}`,
    extra: `package clawhive:host {\n  interface fs { read: func(p: string) -> string; }\n}`,
    capabilities: ["fs.read"],
    imports: ["clawhive:host/fs"],
    problem: /clawhive:host\/fs: outside the plugin contract/,
  },
  {
    name: "the host interface at another version",
    world: `world root {\n  import clawhive:host/fs@0.2.0;\n  export run: func() -> string;\n}`,
    extra: `package clawhive:host@0.2.0 {\n  interface fs { read: func(p: string) -> string; }\n}`,
    capabilities: ["fs.read"],
    imports: ["clawhive:host/fs@0.2.0"],
    problem: /serves clawhive:host@0\.1\.0/,
  },
  {
    name: "control: no imports at all, a doc comment naming one",
    world: `world root {\n  /// import wasi:filesystem/preopens@0.2.3;\n  export run: func() -> string;\n}`,
    capabilities: [],
    imports: [],
  },
];

describe("a component's imports are read from its import section", () => {
  for (const row of rows) {
    it(row.name, async () => {
      const imports = readComponentImports(await component(row.world, row.extra), row.name).map((i) => i.name);
      assert.deepEqual(imports, row.imports);
      const problems = importProblems(imports, row.capabilities);
      if (row.problem) assert.match(problems.join("\n"), row.problem);
      else assert.deepEqual(problems, []);
    });
  }

  it("refuses bytes that are not a readable component, naming where", async () => {
    const good = await component(rows[0]!.world, rows[0]!.extra);
    const cases: Array<[string, Uint8Array]> = [
      ["a core module", Uint8Array.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0])],
      ["cut inside a section", good.subarray(0, 40)],
      ["a section longer than the file", Uint8Array.from([0, 0x61, 0x73, 0x6d, 0x0d, 0, 1, 0, 10, 0xff, 0x7f])],
    ];
    for (const [label, bytes] of cases) assert.throws(() => readComponentImports(bytes, label), { code: "component_unreadable" }, label);
  });
});

describe("jco's list of the glue's imports must be in the import section", () => {
  const section = ["clawhive:host/types@0.1.0", "clawhive:host/fs@0.1.0"];
  const table: Array<{ name: string; glue: string[]; refused?: RegExp }> = [
    { name: "control: unversioned names of section imports", glue: ["clawhive:host/fs"] },
    { name: "control: the versioned name itself", glue: ["clawhive:host/fs@0.1.0"] },
    { name: "an interface the section does not import", glue: ["clawhive:host/fs", "clawhive:host/shell"], refused: /clawhive:host\/shell: imported by the transpiled glue/ },
    { name: "a WASI interface the section does not import", glue: ["wasi:cli/environment"], refused: /wasi:cli\/environment/ },
  ];
  for (const row of table) {
    it(row.name, () => {
      const problems = glueImportProblems(row.glue, section);
      if (row.refused) assert.match(problems.join("\n"), row.refused);
      else assert.deepEqual(problems, []);
    });
  }
});
