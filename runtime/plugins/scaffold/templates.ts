/**
 * The files of a new plugin, as `clawhive plugin new` writes them. Strings, not files under
 * plugins/, so neither this project's tsc nor its plugin build sees them as sources; the
 * scaffold test builds, typechecks and calls what they produce.
 */

import { scaffoldTestHarness } from "./test-harness.js";
import type { ScaffoldValues } from "./values.js";

export type { ScaffoldValues } from "./values.js";

/** File path (relative to the plugin folder) → content. */
export function scaffoldFiles(v: ScaffoldValues): Array<[path: string, content: string]> {
  return [
    ["plugin.json", manifest(v)],
    ["wit/world.wit", world(v)],
    ["src/index.ts", index()],
    ["src/host.ts", host()],
    ["tsconfig.json", tsconfig(v)],
    [`test/${v.name}.test.mjs`, test(v)],
    ["README.md", readme(v)],
    // A clawhive command run here by mistake must not get its store and secret key committed.
    [".gitignore", "dist/\nnode_modules/\n.clawhive/\n"],
  ];
}

function manifest(v: ScaffoldValues): string {
  // Written out rather than JSON.stringify'd: short arrays and objects on one line, as people
  // write manifests. The name is checked (no character JSON would escape); the publisher is not.
  return `{
  "name": "${v.name}",
  "version": "0.1.0",
  "description": "Greets people by name. A starting point: replace it with your own tools.",
  "publisher": ${JSON.stringify(v.publisher)},
  "world": "${v.name}",
  "source": "src/index.ts",
  "capabilities": ["log"],
  "tools": {
    "hello": { "risk": "safe" }
  }
}
`;
}

function world(v: ScaffoldValues): string {
  return `package local:${v.name}@0.1.0;

/// What this plugin's component imports and exports. Import only the clawhive:host interfaces
/// the plugin uses, each covered by a capability in plugin.json (log → "log", fs → "fs.read" /
/// "fs.write", kv → "kv", http → "http.fetch", shell → "shell.exec", gmail → "gmail.read",
/// calendar → "calendar.read" / "calendar.add"). The build puts clawhive's WIT packages
/// (clawhive:host, clawhive:plugin) under deps/ beside this file.
world ${v.name} {
  import clawhive:host/log@0.1.1;
  export clawhive:plugin/tools@0.1.0;
}
`;
}

function index(): string {
  return `import { definePlugin, defineTool, fail } from "@clawhive/plugin-sdk";
import { log } from "./host.js";

/**
 * One tool: its description and JSON Schema input are what the model (or a caller) sees; \`run\`
 * gets input already checked against the schema, typed from it. Return any JSON value. For an
 * expected failure throw \`fail.invalidInput(…)\`, \`fail.notFound(…)\` or \`fail.failed(…)\`.
 * Tools are synchronous: the guest cannot await.
 */
const hello = defineTool({
  description: "Greet someone by name. Returns the greeting.",
  inputSchema: {
    type: "object",
    properties: {
      name: { type: "string", description: "Who to greet." },
      excited: { type: "boolean", description: "End with an exclamation mark instead of a full stop." },
    },
    required: ["name"],
    additionalProperties: false,
  },
  // What the tool may use; each must be in plugin.json's capabilities and granted by the agent.
  capabilities: ["log"],
  risk: "safe",
  run(input) {
    const name = input.name.trim();
    if (name === "") throw fail.invalidInput("name: must not be empty");
    log.info(\`greeting \${name}\`);
    return { greeting: \`Hello, \${name}\${input.excited ? "!" : "."}\` };
  },
});

/** The component's \`tools\` export: every tool of the plugin, by the name the model calls. */
export const tools = definePlugin({ tools: { hello } });
`;
}

function host(): string {
  return `/**
 * Typed helpers over the host proxies this plugin imports (see wit/world.wit). Every proxy is a
 * \`clawhive:host/<name>@0.1.0\` module whose types come from the SDK's host.d.ts; add an
 * import here when you add one to the world. A refused call of a proxy that returns a result
 * (fs, kv, http, …) throws: let it propagate (the SDK makes it the tool's \`denied\` error) or
 * read it with \`hostError(e)\`. \`log.write\` returns nothing: a refused line is dropped (and
 * the denial audited), so logging never fails a tool.
 */
import { write, type Level } from "clawhive:host/log@0.1.1";

function logAt(level: Level) {
  return (message: string): void => write(level, message);
}

/** Lines into the run's log (capability \`log\`; size- and rate-limited by the host). */
export const log = {
  debug: logAt("debug"),
  info: logAt("info"),
  warn: logAt("warn"),
  error: logAt("error"),
};
`;
}

function tsconfig(v: ScaffoldValues): string {
  const sdk = (file: string) => JSON.stringify(`${v.sdkDir}/${file}`);
  return `{
  // Type-checks the plugin as the guest sees it: ES2022, no DOM, no Node; the SDK and the
  // clawhive:host/* modules come from the clawhive that scaffolded it. Typecheck only
  // (npx tsc -p .): 'clawhive plugin build' bundles the source itself and ignores this file.
  "compilerOptions": {
    "target": "ES2022",
    "module": "ESNext",
    "moduleResolution": "Bundler",
    "lib": ["ES2022"],
    "types": [],
    "strict": true,
    "skipLibCheck": true,
    "noUncheckedIndexedAccess": true,
    "noImplicitOverride": true,
    "noImplicitReturns": true,
    "noFallthroughCasesInSwitch": true,
    "verbatimModuleSyntax": true,
    "isolatedModules": true,
    "forceConsistentCasingInFileNames": true,
    "noEmit": true,
    "paths": {
      "@clawhive/plugin-sdk": [${sdk("index.ts")}],
      "@clawhive/plugin-sdk/fs": [${sdk("fs.ts")}]
    }
  },
  "files": [${sdk("host.d.ts")}, ${sdk("guest.d.ts")}],
  "include": ["src/**/*.ts"]
}
`;
}

function test(v: ScaffoldValues): string {
  return `${scaffoldTestHarness(v, { what: "its tool", grants: ["grants:", "  log: {}"], timeoutMs: 180_000 })}
test("hello greets by name", () => {
  const { code, stdout, stderr } = call("${v.name}.hello", { name: "Ada", excited: true });
  assert.equal(code, 0, stderr);
  assert.deepEqual(JSON.parse(stdout), { greeting: "Hello, Ada!" });
});

test("hello refuses an empty name with the tool's own message", () => {
  const { code, stderr } = call("${v.name}.hello", { name: "  " });
  assert.equal(code, 1);
  assert.match(stderr, /invalid-input: name: must not be empty/);
});
`;
}

function readme(v: ScaffoldValues): string {
  return `# ${v.name}

A clawhive plugin: tools for AI agents, built into a WebAssembly component that clawhive runs
in a per-task sandbox.

| file | what it is |
|---|---|
| \`plugin.json\` | the manifest: name, version, publisher, the capabilities the plugin may use, each tool's risk |
| \`wit/world.wit\` | the WIT world: the \`clawhive:host\` interfaces it imports, the tools interface it exports |
| \`src/index.ts\` | the tools (\`defineTool\`) and the component's \`tools\` export (\`definePlugin\`) |
| \`src/host.ts\` | typed helpers over the host proxies the world imports |
| \`test/${v.name}.test.mjs\` | builds, installs and calls the plugin through clawhive |
| \`tsconfig.json\` | type-checks \`src/\` against the clawhive SDK (\`npx tsc -p .\`) |

\`\`\`sh
clawhive plugin build                      # → dist/plugin.wasm and dist/plugin.json (--pack: a .tgz too)
node --test                                # build, install into a temp data dir, call the tool
clawhive plugin install ./dist             # install it into your data dir
clawhive call ${v.name}.hello '{"name":"Ada"}' --agent NAME   # an agent that lists ${v.name} and grants log
\`\`\`

The guide, from the SDK to granting and upgrading: ${v.guide}
`;
}
