import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PluginError } from "../errors.js";
import { ARTIFACT_RECORD, BLOB_FILE, GLUE_FILE, readArtifact, sha256, type ArtifactRecord, type PluginArtifact } from "./artifact.js";
import { patchGlue, runChild } from "./build.js";
import { PROJECT_ROOT } from "./locations.js";
import type { PluginManifest } from "./manifest.js";
import { publishDir } from "./publish.js";

/** Bump when what compiling does changes (glue patches included), so old entries stop matching. */
const COMPILE_RECIPE = "1";

export interface CompileInput {
  manifest: PluginManifest;
  /** The installed blob and its sha256 (checked again here). */
  bytes: Uint8Array;
  sha256: string;
}

export interface CompileOptions {
  /** Node-local cache; compiled output lives under `<cacheDir>/compiled/`. */
  cacheDir: string;
  onProgress?: (line: string) => void;
}

/**
 * The compiled form of an installed blob, from the node-local cache or made now. It is built
 * only from the hashed bytes: a component is transpiled (glue patched deterministically, then
 * every output hashed into the record); an Extism plugin's core module is kept as it is.
 */
export async function compilePlugin(input: CompileInput, options: CompileOptions): Promise<PluginArtifact> {
  const { manifest } = input;
  const actual = sha256(input.bytes);
  if (actual !== input.sha256) {
    throw new PluginError("blob_tampered", `plugin ${manifest.name}: its wasm does not match its recorded sha256 (expected ${input.sha256}, got ${actual})`);
  }
  const key = compileKey(input);
  const dir = join(options.cacheDir, "compiled", `${manifest.name}-${input.sha256.slice(0, 16)}-${key.slice(0, 12)}`);
  const cached = await readArtifact(dir);
  if (cached && cached.key === key) return cached;

  const work = await mkdtemp(join(tmpdir(), "clawhive-compile-"));
  try {
    const out = join(work, "out");
    await writeFile(join(work, BLOB_FILE), input.bytes);
    const files: Record<string, string> = {};
    if (manifest.format === "component") {
      options.onProgress?.(`${manifest.name}: compiling ${input.sha256.slice(0, 12)} (transpiling the component)`);
      await runChild(["transpile", work]);
      for (const name of (await readdir(out)).filter((n) => n === GLUE_FILE || n.endsWith(".wasm"))) {
        let bytes = await readFile(join(out, name));
        if (name === GLUE_FILE) {
          bytes = Buffer.from(patchGlue(bytes.toString("utf8")));
          await writeFile(join(out, name), bytes);
        }
        files[name] = sha256(bytes);
      }
      if (!files[GLUE_FILE]) throw new PluginError("compile_failed", `plugin ${manifest.name}: transpiling produced no glue`);
    } else {
      await mkdir(out);
    }
    await writeFile(join(out, BLOB_FILE), input.bytes);
    const record: ArtifactRecord = { key, format: manifest.format, manifest, blobSha256: input.sha256, files };
    await writeFile(join(out, ARTIFACT_RECORD), JSON.stringify(record, null, 2));
    await publishDir(out, dir, { replace: cached !== undefined });
    return { ...record, dir };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

function compileKey(input: CompileInput): string {
  const jco = input.manifest.format === "component" ? toolVersion("@bytecodealliance/jco") : "";
  return sha256(JSON.stringify({ recipe: COMPILE_RECIPE, jco, blob: input.sha256, manifest: input.manifest }));
}

function toolVersion(name: string): string {
  return (JSON.parse(readFileSync(join(PROJECT_ROOT, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;
}
