/**
 * Extism peer: the same two figures as ours (ready instance, one call) for an mcp.run-style
 * Extism plugin (`echo.wat`) on `@extism/extism`, foreground, no WASI, no hosts, no paths.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import createPlugin from "@extism/extism";
import type { ExtismPluginOptions, Manifest, Plugin } from "@extism/extism";
import { InvalidInputError, PluginError } from "../../runtime/errors.js";
import { timeLoop } from "./sample.js";
import type { LoopCounts, PeerFigures } from "./sample.js";

/** A 100-byte mcp.run-style `call` input. */
export const ECHO_INPUT = '{"params":{"name":"echo","arguments":{"text":"The quick brown fox jumps over the lazy dog","n":42}}}';

export interface CompileEchoOptions {
  /** Where `echo.wat` is. Default: beside this file, or `bench/peers/` when run from `dist/`. */
  watPath?: string;
}

export interface ExtismPeerOptions extends CompileEchoOptions {
  /** An already-compiled Extism plugin exporting `call`. Default: `echo.wat`, compiled once. */
  module?: WebAssembly.Module;
  /** Input of each `call`. Default `ECHO_INPUT`; the output must equal it unless `module` is given. */
  input?: string;
  /** Default 300 timed `createPlugin` calls. */
  instance?: LoopCounts;
  /** Default 3000 timed calls. */
  call?: LoopCounts;
}

/** `useWasi: false`, no allowed hosts, no paths, no host functions, on this thread. */
const PLUGIN_OPTIONS: ExtismPluginOptions = {
  useWasi: false,
  runInWorker: false,
  allowedHosts: [],
  allowedPaths: {},
  functions: {},
};

/** Compiles `echo.wat` with wabt: bytes are made at bench time, never committed. */
export async function compileEchoPlugin(options: CompileEchoOptions = {}): Promise<WebAssembly.Module> {
  const watPath = options.watPath ?? findEchoWat();
  const text = await readFile(watPath, "utf8");
  const wabt = await (await import("wabt")).default();
  const parsed = wabt.parseWat(watPath, text);
  try {
    parsed.validate();
    const { buffer } = parsed.toBinary({});
    // wabt hands out a copy in a plain ArrayBuffer.
    return new WebAssembly.Module(buffer as Uint8Array<ArrayBuffer>);
  } finally {
    parsed.destroy();
  }
}

/**
 * `instanceReady`: `createPlugin({ wasm: [{ module }] })` from an already-compiled module until
 * its promise settles with a callable plugin (1.0.3 does no compile on this path; a bare
 * `WebAssembly.Module` as manifest is wrapped into the same shape). `call`: one
 * `plugin.call("call", input)` on one ready plugin, output decoded to a string — string in,
 * string out, like our tool call. 1.0.3 never frees a plugin's kernel blocks on its own, so
 * `plugin.reset()` runs after each call, outside the timed span.
 */
export async function measureExtism(options: ExtismPeerOptions = {}): Promise<PeerFigures> {
  const module = options.module ?? (await compileEchoPlugin(options));
  const input = options.input ?? ECHO_INPUT;
  const manifest: Manifest = { wasm: [{ module }] };

  const instanceReady = await timeLoop(() => createPlugin(manifest, PLUGIN_OPTIONS), {
    iterations: options.instance?.iterations ?? 300,
    warmup: options.instance?.warmup ?? 30,
    after: (plugin) => plugin.close(),
  });

  const plugin = await createPlugin(manifest, PLUGIN_OPTIONS);
  try {
    if (options.module === undefined) await checkEcho(plugin, input);
    const call = await timeLoop(async () => (await plugin.call("call", input))?.text(), {
      iterations: options.call?.iterations ?? 3000,
      warmup: options.call?.warmup ?? 300,
      after: () => plugin.reset(),
    });
    return { instanceReady, call };
  } finally {
    await plugin.close();
  }
}

/** A peer that does not do the work measures nothing: check both exports once, untimed. */
async function checkEcho(plugin: Plugin, input: string): Promise<void> {
  const echoed = (await plugin.call("call", input))?.text();
  if (echoed !== input) {
    throw new PluginError("bench_peer_broken", `extism echo: call returned ${JSON.stringify(echoed)}, expected its input`);
  }
  const described: unknown = (await plugin.call("describe"))?.json();
  const tools = (described as { tools?: unknown } | null)?.tools;
  if (!Array.isArray(tools) || tools.length !== 1) {
    throw new PluginError("bench_peer_broken", `extism echo: describe returned ${JSON.stringify(described)}`);
  }
  await plugin.reset();
}

function findEchoWat(): string {
  const candidates = [
    new URL("./echo.wat", import.meta.url),
    // tsc does not copy .wat: from dist/bench/peers/ the source sits at bench/peers/.
    new URL("../../../bench/peers/echo.wat", import.meta.url),
  ].map((url) => fileURLToPath(url));
  const found = candidates.find((path) => existsSync(path));
  if (found === undefined) {
    throw new InvalidInputError(`extism echo: echo.wat not found: looked in ${candidates.join(", ")}; pass watPath`, {
      field: "watPath",
    });
  }
  return found;
}
