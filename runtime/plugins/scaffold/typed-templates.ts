/**
 * The files of a new typed-export plugin (`clawhive plugin new --typed`): a component whose
 * world exports plain WIT functions, built with componentize-js like any clawhive plugin. Each
 * exported function is a tool; its input schema comes from its WIT types, its risk and
 * capabilities from plugin.json.
 */
import type { ScaffoldValues } from "./templates.js";
import { scaffoldTestHarness } from "./test-harness.js";

export function typedScaffoldFiles(v: ScaffoldValues): Array<[path: string, content: string]> {
  return [
    ["plugin.json", manifest(v)],
    ["wit/world.wit", world(v)],
    ["src/index.ts", index()],
    ["tsconfig.json", tsconfig()],
    [`test/${v.name}.test.mjs`, test(v)],
    ["README.md", readme(v)],
    [".gitignore", "dist/\nnode_modules/\n"],
  ];
}

function manifest(v: ScaffoldValues): string {
  return `{
  "name": "${v.name}",
  "version": "0.1.0",
  "description": "Greets people by name with typed WIT functions. A starting point: replace it with your own.",
  "publisher": ${JSON.stringify(v.publisher)},
  "world": "${v.name}",
  "source": "src/index.ts",
  "contract": "typed",
  "capabilities": [],
  "tools": {
    "greet": { "risk": "safe" },
    "greetings_count_letters": { "risk": "safe" }
  }
}
`;
}

function world(v: ScaffoldValues): string {
  return `package local:${v.name}@0.1.0;

/// Typed functions in an interface: each becomes the tool <interface>_<function>.
interface greetings {
  record letters {
    vowels: u32,
    consonants: u32,
  }

  count-letters: func(text: string) -> letters;
}

/// Every exported function is a tool; its JSON input schema is derived from these WIT types
/// (record fields and parameters in snake case, enums as strings, option as null-or-value,
/// result errors as tool errors). The world imports nothing: no host interface, no WASI.
world ${v.name} {
  enum mood { calm, excited }

  export greetings;
  export greet: func(name: string, mood: option<mood>) -> result<string, string>;
}
`;
}

function index(): string {
  return `// The world's exports as plain functions (jco's conventions: lower camel case names, an
// interface as an object, an enum as its WIT name, an option as undefined-or-value). Throwing a
// string from a function that returns result<_, string> returns its error case.
export function greet(name: string, mood: "calm" | "excited" | undefined): string {
  const who = name.trim();
  if (who === "") throw "name: must not be empty";
  return \`Hello, \${who}\${mood === "excited" ? "!" : "."}\`;
}

export const greetings = {
  countLetters(text: string): { vowels: number; consonants: number } {
    const letters = text.toLowerCase().replace(/[^a-z]/g, "");
    const vowels = letters.replace(/[^aeiou]/g, "").length;
    return { vowels, consonants: letters.length - vowels };
  },
};
`;
}

function tsconfig(): string {
  return `{
  "compilerOptions": {
    "target": "ES2022",
    "module": "ESNext",
    "moduleResolution": "Bundler",
    "strict": true,
    "skipLibCheck": true,
    "noEmit": true
  },
  "include": ["src/**/*.ts"]
}
`;
}

function test(v: ScaffoldValues): string {
  return `${scaffoldTestHarness(v, { what: "its typed tools", grants: ["grants: {}"], timeoutMs: 600_000 })}
test("greet returns its result's ok value", () => {
  const { code, stdout, stderr } = call("${v.name}.greet", { name: "Ada", mood: "excited" });
  assert.equal(code, 0, stderr);
  // A string result is printed as it is; any other JSON value as JSON.
  assert.equal(stdout.trim(), "Hello, Ada!");
});

test("greet's error case is a tool error; a value outside the enum never reaches it", () => {
  assert.match(call("${v.name}.greet", { name: " " }).stderr, /failed: name: must not be empty/);
  assert.match(call("${v.name}.greet", { name: "Ada", mood: "grumpy" }).stderr, /invalid-input: input\\.mood/);
});

test("an interface function returns its record as JSON", () => {
  const { code, stdout, stderr } = call("${v.name}.greetings_count_letters", { text: "Hello" });
  assert.equal(code, 0, stderr);
  assert.deepEqual(JSON.parse(stdout), { vowels: 2, consonants: 3 });
});
`;
}

function readme(v: ScaffoldValues): string {
  return `# ${v.name}

A clawhive plugin written as a standard WebAssembly component: its world exports typed WIT
functions (no clawhive SDK, no describe/call). clawhive reads the types from the built
component, derives each tool's JSON Schema, validates and converts the arguments, and turns a
\`result\`'s error case into a tool error.

| file | what it is |
|---|---|
| \`plugin.json\` | the manifest: \`"contract": "typed"\`, each exported function's risk (and capabilities) |
| \`wit/world.wit\` | the world: what it exports (and imports, here nothing) |
| \`src/index.ts\` | the functions, in jco's JavaScript conventions |
| \`test/${v.name}.test.mjs\` | builds, installs and calls the plugin through clawhive |

\`\`\`sh
clawhive plugin build                   # componentize-js → dist/plugin.wasm and dist/plugin.json
node --test                             # build, install into a temp data dir, call the tools
clawhive plugin install ./dist          # install it into your data dir
\`\`\`

The guide: ${v.guide} ("Typed WIT exports").
`;
}
