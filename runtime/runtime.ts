import { mkdir } from "node:fs/promises";
import { resolve } from "node:path";
import { InvalidInputError, PluginError } from "./errors.js";
import { buildPlugin } from "./plugins/build.js";
import { defaultBuildCacheDir, pluginSourceDirs } from "./plugins/locations.js";
import { parseRunGrant, type RunGrant } from "./runs/grant.js";
import { Run } from "./runs/run.js";
import type { ToolInfo } from "./runs/types.js";
import { Sandbox, type SandboxOptions, type SandboxPlugin } from "./sandbox/index.js";

export interface RuntimeOptions {
  /** Where the runtime keeps its state; relative mount paths resolve against it. */
  dataDir: string;
  sandbox?: SandboxOptions;
  /** Plugin source folders to build (if needed) and load. Default: the first-party plugins. */
  pluginDirs?: string[];
  /** Node-local cache of plugin builds. Default: the project's `.clawhive/build`. */
  buildCacheDir?: string;
  /** Progress lines for long work (plugin builds). */
  onProgress?: (line: string) => void;
}

/**
 * The core every front end wraps (HTTP API, CLI, tests): loaded plugins, their tools, a sandbox,
 * and runs started on it.
 */
export class Runtime {
  readonly dataDir: string;
  readonly sandbox: Sandbox;
  #plugins: Map<string, SandboxPlugin>;
  #tools: ToolInfo[];
  #runs = new Map<string, Run>();
  #closed = false;

  private constructor(dataDir: string, sandbox: Sandbox, plugins: Map<string, SandboxPlugin>, tools: ToolInfo[]) {
    this.dataDir = dataDir;
    this.sandbox = sandbox;
    this.#plugins = plugins;
    this.#tools = tools;
  }

  static async create(options: RuntimeOptions): Promise<Runtime> {
    const dataDir = resolve(options.dataDir);
    await mkdir(dataDir, { recursive: true });
    const sandbox = new Sandbox(options.sandbox);
    try {
      const dirs = options.pluginDirs ?? (await pluginSourceDirs());
      const plugins = new Map<string, SandboxPlugin>();
      const tools: ToolInfo[] = [];
      for (const dir of dirs) {
        const artifact = await buildPlugin(dir, { cacheDir: options.buildCacheDir ?? defaultBuildCacheDir(), onProgress: options.onProgress });
        const name = artifact.manifest.name;
        if (plugins.has(name)) throw new PluginError("plugin_name_clash", `two plugins are named ${name}: ${dir}`);
        const plugin = await sandbox.load(artifact);
        plugins.set(name, plugin);
        tools.push(...(await describeTools(sandbox, plugin)));
      }
      return new Runtime(dataDir, sandbox, plugins, tools);
    } catch (error) {
      await sandbox.close();
      throw error;
    }
  }

  /** Every tool of every loaded plugin. */
  tools(): readonly ToolInfo[] {
    return this.#tools;
  }

  plugins(): Array<{ name: string; version: string; description: string; publisher: string }> {
    return [...this.#plugins.values()].map(({ manifest }) => ({
      name: manifest.name,
      version: manifest.version,
      description: manifest.description,
      publisher: manifest.publisher,
    }));
  }

  /**
   * Starts a run with `grants` (validated here: this is an edge). Its instances are created on
   * first use and bound to exactly these grants.
   */
  async startRun(options: { grants?: unknown; traceId?: string } = {}): Promise<Run> {
    if (this.#closed) throw new InvalidInputError("the runtime is closed");
    const grant: RunGrant = parseRunGrant(options.grants ?? {}, { baseDir: this.dataDir });
    const run = new Run(grant, {
      sandbox: this.sandbox,
      plugins: this.#plugins,
      tools: this.#tools,
      memoryCapBytes: this.sandbox.options.memoryMaxMb * 1024 * 1024,
    }, { traceId: options.traceId });
    this.#runs.set(run.id, run);
    run.onEvent((event) => {
      if (event.type === "run-ended") this.#runs.delete(run.id);
    });
    return run;
  }

  getRun(id: string): Run | undefined {
    return this.#runs.get(id);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.allSettled([...this.#runs.values()].map((run) => run.end()));
    await this.sandbox.close();
  }
}

async function describeTools(sandbox: Sandbox, plugin: SandboxPlugin): Promise<ToolInfo[]> {
  const { manifest } = plugin;
  const descriptors = await sandbox.describe(plugin);
  return descriptors.map((d) => {
    if (!Object.hasOwn(manifest.tools, d.name)) {
      throw new PluginError("tool_undeclared", `plugin ${manifest.name}: tool ${d.name} is not declared in plugin.json`);
    }
    let inputSchema: unknown;
    try {
      inputSchema = JSON.parse(d.inputSchema);
    } catch {
      throw new PluginError("tool_schema_invalid", `plugin ${manifest.name}: tool ${d.name} has an input schema that is not JSON`);
    }
    const undeclared = d.capabilities.filter((c) => !manifest.capabilities.includes(c));
    if (undeclared.length > 0) {
      throw new PluginError("capability_undeclared", `plugin ${manifest.name}: tool ${d.name} uses ${undeclared.join(", ")}, not declared in plugin.json`);
    }
    return {
      plugin: manifest.name,
      name: d.name,
      qualifiedName: `${manifest.name}.${d.name}`,
      description: d.description,
      inputSchema,
      capabilities: d.capabilities,
      risk: d.risk,
    };
  });
}
