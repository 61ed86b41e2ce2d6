/**
 * An AssemblyScript plugin's real component, built as install builds it, transpiled by jco and
 * instantiated on this thread (glue options as the sandbox's) with host imports the test gives: the canonical ABI is exercised
 * byte for byte, without the sandbox's workers. The core instance is kept, so a test can read
 * its memory's size.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { transpileBytes } from "@bytecodealliance/jco-transpile";
import { buildComponent } from "../../../runtime/plugins/build.js";
import { defaultBuildCacheDir } from "../../../runtime/plugins/locations.js";

export interface ToolsExport {
  describe(): Array<{ name: string; description: string; inputSchema: string; capabilities: string[]; risk: string }>;
  call(name: string, input: string): string;
}

export interface LoadedComponent {
  tools: ToolsExport;
  /** The guest's linear memory, in bytes, now. */
  memoryBytes(): number;
  bytes: number;
}

type Instantiate = (
  getCoreModule: (path: string) => WebAssembly.Module,
  imports: Record<string, unknown>,
  instantiateCore: (module: WebAssembly.Module, imports: WebAssembly.Imports) => Promise<WebAssembly.Instance>,
) => Promise<Record<string, unknown>>;

const glues = new Map<string, Promise<{ instantiate: Instantiate; modules: Map<string, WebAssembly.Module>; bytes: number }>>();

async function glueOf(pluginDir: string) {
  const built = await buildComponent(pluginDir, { cacheDir: defaultBuildCacheDir() });
  const { files } = await transpileBytes(built.bytes, { name: "plugin", instantiation: "async", emitTypescriptDeclarations: false, noComponentErrorWrapping: false, wasiShim: false });
  const dir = await mkdtemp(join(tmpdir(), "clawhive-as-test-"));
  try {
    const modules = new Map<string, WebAssembly.Module>();
    for (const [name, bytes] of Object.entries(files)) {
      if (name.endsWith(".wasm")) modules.set(name, await WebAssembly.compile(new Uint8Array(bytes)));
      else await writeFile(join(dir, name.replace(/\.js$/, ".mjs")), bytes);
    }
    const { instantiate } = (await import(pathToFileURL(join(dir, "plugin.mjs")).href)) as { instantiate: Instantiate };
    return { instantiate, modules, bytes: built.bytes.length };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A fresh instance of the plugin in `pluginDir` over `imports` (keys without `@version`, as jco's glue reads them). */
export async function loadComponent(pluginDir: string, imports: Record<string, unknown>): Promise<LoadedComponent> {
  let glue = glues.get(pluginDir);
  if (!glue) glues.set(pluginDir, (glue = glueOf(pluginDir)));
  const { instantiate, modules, bytes } = await glue;
  const memories: WebAssembly.Memory[] = [];
  const exports = await instantiate(
    (path) => modules.get(path)!,
    imports,
    async (module, coreImports) => {
      const instance = await WebAssembly.instantiate(module, coreImports);
      const memory = instance.exports["memory"];
      if (memory instanceof WebAssembly.Memory) memories.push(memory);
      return instance;
    },
  );
  const tools = (exports["tools"] ?? exports["clawhive:plugin/tools@0.1.0"]) as ToolsExport;
  return { tools, bytes, memoryBytes: () => memories.reduce((n, m) => n + m.buffer.byteLength, 0) };
}
