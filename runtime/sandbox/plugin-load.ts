/**
 * A plugin made ready for the workers: its core modules verified against their recorded hashes,
 * memory-capped and compiled once on the main thread, and the load task that hands them, with
 * the plugin's WASI grant and typed plan, to a worker.
 */
import { readVerifiedFiles, type PluginArtifact } from "../plugins/artifact.js";
import { capMemory, readMemoryLimits } from "../plugins/memory-cap.js";
import { logLevelPriority, type ExtismLogLevel } from "../plugins/extism-abi.js";
import { typedToolsOf } from "../plugins/typed/index.js";
import type { ExtismLoad, WorkerTask } from "./protocol.js";
import type { SandboxPlugin } from "./types.js";

const PAGE = 65536;

export async function compilePlugin(artifact: PluginArtifact, key: string, memoryMaxMb: number): Promise<SandboxPlugin> {
  const files = await readVerifiedFiles(artifact);
  const maxPages = Math.floor((memoryMaxMb * 1024 * 1024) / PAGE);
  const modules: Record<string, WebAssembly.Module> = {};
  for (const [name, bytes] of Object.entries(files.coreModules)) {
    const capped = readMemoryLimits(bytes).length > 0 ? capMemory(bytes, maxPages) : bytes;
    modules[name] = await WebAssembly.compile(capped as Uint8Array<ArrayBuffer>);
  }
  const typed = artifact.manifest.contract === "typed" ? await typedToolsOf(artifact) : undefined;
  return Object.freeze({ key, manifest: artifact.manifest, format: artifact.format, ...(files.glue === undefined ? {} : { glue: files.glue }), modules: Object.freeze(modules), memoryMaxMb, ...(typed ? { typed } : {}) });
}

/** What an Extism plugin's instances are given besides the module (sandbox options). */
export interface ExtismLoadOptions {
  /** Bounds its kernel blocks. */
  kernelBytes: number;
  /** The level its kernel log lines are kept from. */
  logLevel: ExtismLogLevel | "silent";
}

/** What a worker is sent to load `plugin`. */
export function loadTask(plugin: SandboxPlugin, options: ExtismLoadOptions): Extract<WorkerTask, { type: "load" }> {
  const task: Extract<WorkerTask, { type: "load" }> = { type: "load", pluginKey: plugin.key, format: plugin.format, ...(plugin.glue === undefined ? {} : { glue: plugin.glue }), modules: { ...plugin.modules } };
  if (plugin.format === "extism") task.extism = extismLoad(plugin, options);
  task.wasi = { env: { ...plugin.manifest.wasi?.env }, config: { ...plugin.manifest.wasi?.config }, args: [plugin.manifest.name] };
  if (plugin.typed) task.typed = plugin.typed;
  return task;
}

/**
 * An Extism plugin's describe defaults, its kernel budget (the SDK keeps kernel blocks outside
 * wasm memory, so they get a cap of their own, the same size as the memory cap) and its log
 * level: silent for a plugin that does not declare `log` (every line would be refused).
 */
function extismLoad(plugin: SandboxPlugin, options: ExtismLoadOptions): ExtismLoad {
  const { capabilities, tools } = plugin.manifest;
  const risks = Object.fromEntries(Object.entries(tools).map(([name, tool]) => [name, tool.risk]));
  const logLevel = logLevelPriority(capabilities.includes("log") ? options.logLevel : "silent");
  return { capabilities: [...capabilities], risks, kernelBytes: options.kernelBytes, logLevel };
}
