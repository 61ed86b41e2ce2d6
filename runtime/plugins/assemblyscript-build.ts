/**
 * Builds an AssemblyScript plugin's component (run in a build child, componentize-child.ts):
 * `asc` compiles the entry to a core module; its exports are renamed to the canonical ABI's names
 * (an AssemblyScript export cannot be called `clawhive:plugin/tools@0.1.0#call`); the plugin's WIT
 * world is embedded and the component made with jco-transpile's wasm-tools. No other tool.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";

/** The interface every describe/call plugin exports, and the AssemblyScript names of its functions. */
const TOOLS = "clawhive:plugin/tools@0.1.0";
const RENAMES: Record<string, string> = {
  describe: `${TOOLS}#describe`,
  call: `${TOOLS}#call`,
  post_describe: `cabi_post_${TOOLS}#describe`,
  post_call: `cabi_post_${TOOLS}#call`,
};
/** Exports kept under their own names: the canonical ABI's memory and allocator. */
const KEPT = new Set(["memory", "cabi_realloc"]);
const REQUIRED = ["memory", "cabi_realloc", ...Object.values(RENAMES)];

export interface AssemblyScriptJob {
  /** The job folder: the entry and the SDK laid out under it, the world under `wit/`. */
  dir: string;
  /** The entry, relative to `dir`, without `.ts`'s extension requirement (asc takes either). */
  entry: string;
  /** The AssemblyScript SDK's folder, relative to `dir` (its `abi.ts` holds the `abort` trap). */
  sdk: string;
  world: string;
}

/** Compiles and componentizes; returns the component's bytes. Compiler diagnostics are the error's message. */
export async function buildAssemblyScript(job: AssemblyScriptJob): Promise<Uint8Array> {
  const core = canonicalExports(await compile(job));
  const { componentEmbed, componentNew } = await import("@bytecodealliance/jco-transpile/wasm-tools");
  const embedded = await componentEmbed({ binary: core, witPath: join(job.dir, "wit"), world: job.world });
  return componentNew(embedded);
}

async function compile(job: AssemblyScriptJob): Promise<Uint8Array> {
  const asc = (await import("assemblyscript/asc")).default;
  const out = join(job.dir, "out", "core.wasm");
  const stderr = asc.createMemoryStream();
  const { error } = await asc.main(
    [
      join(job.dir, job.entry),
      "--outFile", out,
      "-O3",
      // A collector that runs in steps (AssemblyScript's default): memory stays flat across a long
      // session's calls, which one instance serves (docs/plugins.md).
      "--runtime", "incremental",
      // An assertion failure traps: the instance is poisoned and replaced, as any trap is.
      "--use", `abort=${job.sdk.replace(/\\/g, "/")}/abi/trap`,
      "--baseDir", job.dir,
    ],
    { stderr, stdout: asc.createMemoryStream() },
  );
  if (error) throw new Error(`asc: ${error.message}\n${stderr.toString()}`);
  return new Uint8Array(await readFile(out));
}

/** The core module with its exports under the canonical ABI's names; an export the contract does not know is refused. */
export function canonicalExports(core: Uint8Array): Uint8Array {
  const module = new WebAssembly.Module(new Uint8Array(core));
  const names = WebAssembly.Module.exports(module).map((e) => e.name);
  const unknown = names.filter((n) => !KEPT.has(n) && !(n in RENAMES));
  if (unknown.length > 0) {
    throw new Error(`exports ${unknown.join(", ")}: not part of the tools contract; export only describe, call, post_describe, post_call and cabi_realloc (from the SDK)`);
  }
  const renamed = renameExports(core, RENAMES);
  const have = new Set(WebAssembly.Module.exports(new WebAssembly.Module(new Uint8Array(renamed))).map((e) => e.name));
  const missing = REQUIRED.filter((n) => !have.has(n));
  if (missing.length > 0) throw new Error(`exports missing: ${missing.join(", ")}; re-export them from the SDK in the plugin's entry`);
  return renamed;
}

/**
 * Rewrites the export section (id 7) with new names; every other byte is copied as it is.
 * The section is a vector of (name, kind byte, index) (WebAssembly core spec §5.5.10).
 */
export function renameExports(core: Uint8Array, renames: Record<string, string>): Uint8Array {
  const reader = new Reader(core);
  reader.at = 8;
  const parts: Uint8Array[] = [core.subarray(0, 8)];
  while (reader.at < core.length) {
    const start = reader.at;
    const id = core[reader.at++]!;
    const size = reader.u32();
    const body = reader.at;
    reader.at = body + size;
    if (id !== 7) {
      parts.push(core.subarray(start, reader.at));
      continue;
    }
    const section = new Reader(core.subarray(body, body + size));
    const count = section.u32();
    const out: number[] = [...leb(count)];
    for (let i = 0; i < count; i++) {
      const len = section.u32();
      const name = new TextDecoder().decode(section.bytes.subarray(section.at, section.at + len));
      section.at += len;
      const kind = section.bytes[section.at++]!;
      const index = section.u32();
      const bytes = new TextEncoder().encode(renames[name] ?? name);
      out.push(...leb(bytes.length), ...bytes, kind, ...leb(index));
    }
    parts.push(Uint8Array.of(7, ...leb(out.length)), Uint8Array.from(out));
  }
  const whole = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    whole.set(part, at);
    at += part.length;
  }
  return whole;
}

class Reader {
  at = 0;
  constructor(readonly bytes: Uint8Array) {}

  u32(): number {
    let value = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      const byte = this.bytes[this.at++];
      if (byte === undefined) throw new Error("a truncated LEB128 number in the module");
      value += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return value;
    }
    throw new Error("an over-long LEB128 number in the module");
  }
}

function leb(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n = Math.floor(n / 128);
    if (n > 0) byte |= 0x80;
    out.push(byte);
  } while (n > 0);
  return out;
}
