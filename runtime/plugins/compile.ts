import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ClawhiveError, PluginError } from "../errors.js";
import { ARTIFACT_RECORD, BLOB_FILE, GLUE_FILE, readArtifact, sha256, type ArtifactRecord, type PluginArtifact } from "./artifact.js";
import { patchGlue, withBuildChild, type BuildJob } from "./build-child.js";
import { packageVersion } from "./package-dir.js";
import type { PluginManifest } from "./manifest.js";
import { publishDir } from "./publish.js";
import { canonicalText, CodeSeal } from "./seal.js";
import { sweepStaleWorkOnce } from "./stale-work.js";

/** Bump when what compiling does changes (glue patches included), so old entries stop matching. */
const COMPILE_RECIPE = "2";
const SEAL_PURPOSE = "clawhive compiled plugin v1";

export interface CompileInput {
  manifest: PluginManifest;
  /**
   * The installed blob and its sha256 (checked again here). Given as a function (the blob read
   * from the store), it is read, and checked, only when no build of it this node's seal vouches
   * for is cached: the code that runs is the cached build, whose files are checked at load.
   */
  bytes: Uint8Array | (() => Promise<Uint8Array>);
  sha256: string;
}

/** A cached build that was not used: its seal or a file did not match. */
export interface RefusedBuild {
  /** `artifact_tampered` or `artifact_invalid`. */
  code: string;
  message: string;
}

export interface CompileOptions {
  /** Node-local cache; compiled output lives under `<cacheDir>/compiled/`. */
  cacheDir: string;
  onProgress?: (line: string) => void;
  /**
   * What vouches for cached builds (see seal.ts). A runtime passes the seal of its secret key;
   * without one, an ephemeral seal is used: nothing this process did not build is trusted.
   */
  seal?: CodeSeal;
  /** Told when a sealed build is refused (then rebuilt): the caller audits it. */
  onRefused?: (refused: RefusedBuild) => Promise<void> | void;
  /** Build again from the blob even when a sealed build is cached (a file of it failed its hash). */
  rebuild?: boolean;
}

/**
 * The compiled form of an installed blob, from the node-local cache or made now. It is built
 * only from the hashed bytes: a component is transpiled (glue patched deterministically, then
 * every output hashed into the record); an Extism plugin's core module is kept as it is.
 *
 * A cached build is used only when its record carries this node's seal. A record whose seal does
 * not match is refused (told to `onRefused`) and rebuilt from the blob; an unsealed one is
 * verified by building again: when the new record equals it, it is sealed, else replaced.
 * The files themselves are checked against the (sealed) record when they are loaded.
 */
export async function compilePlugin(input: CompileInput, options: CompileOptions): Promise<PluginArtifact> {
  const { manifest } = input;
  const checked = (bytes: Uint8Array): Uint8Array => {
    const actual = sha256(bytes);
    if (actual !== input.sha256) {
      throw new PluginError("blob_tampered", `plugin ${manifest.name}: its wasm does not match its recorded sha256 (expected ${input.sha256}, got ${actual})`);
    }
    return bytes;
  };
  let bytes = typeof input.bytes === "function" ? undefined : checked(input.bytes);
  const seal = options.seal ?? CodeSeal.forProcess();
  const key = compileKey(input);
  const dir = join(options.cacheDir, "compiled", `${manifest.name}-${input.sha256.slice(0, 16)}-${key.slice(0, 12)}`);
  const present = await stat(dir).then(() => true, () => false);
  const cached = await readCached(dir, key, seal, options);
  if (cached?.sealed && !options.rebuild) return cached.artifact;
  bytes ??= checked(await (input.bytes as () => Promise<Uint8Array>)());

  // An Extism module is only copied: no child needed.
  const inWork = manifest.format === "component" ? withBuildChild : withWorkFolder;
  return inWork(async (work, run) => {
    const record = await compileInto(work, run, { ...input, bytes }, key, options);
    if (cached && !options.rebuild) {
      if (canonicalText(recordOf(cached.artifact)) === canonicalText(record)) {
        // The same build as the cached one's record: the record is vouched for now.
        await writeSeal(dir, seal, record);
        return cached.artifact;
      }
      await options.onRefused?.({
        code: "artifact_tampered",
        message: `plugin ${manifest.name}: the cached build at ${dir} is not what its installed blob compiles to; refused, replaced by a build from the blob`,
      });
    }
    await writeSeal(join(work, "out"), seal, record, { memoryPlace: dir });
    // A build that was not there is published only if it still is not: another process of this
    // node (nodes starting together) may have published the same build meanwhile, and replacing
    // it would pull its files from under that process's loads. Same key, same build.
    await publishDir(join(work, "out"), dir, { replace: present || options.rebuild === true });
    return { ...record, dir };
  });
}

/** A temp work folder for `use`, removed after it (no child to run). */
async function withWorkFolder<T>(use: BuildJob<T>): Promise<T> {
  sweepStaleWorkOnce(tmpdir());
  const work = await mkdtemp(join(tmpdir(), "clawhive-compile-"));
  try {
    return await use(work, () => Promise.reject(new PluginError("compile_failed", "no build child for this compile")));
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** Transpiles (a component) or copies (an Extism module) into `<work>/out`; returns the record written there. */
async function compileInto(work: string, run: (mode: string) => Promise<void>, input: CompileInput & { bytes: Uint8Array }, key: string, options: CompileOptions): Promise<ArtifactRecord> {
  const { manifest } = input;
  const out = join(work, "out");
  await writeFile(join(work, BLOB_FILE), input.bytes);
  const files: Record<string, string> = {};
  let glueImports: string[] = [];
  if (manifest.format === "component") {
    options.onProgress?.(`${manifest.name}: compiling ${input.sha256.slice(0, 12)} (transpiling the component)`);
    await run("transpile");
    for (const name of (await readdir(out)).filter((n) => n === GLUE_FILE || n.endsWith(".wasm")).sort()) {
      let bytes = await readFile(join(out, name));
      if (name === GLUE_FILE) {
        bytes = Buffer.from(patchGlue(bytes.toString("utf8")));
        await writeFile(join(out, name), bytes);
      }
      files[name] = sha256(bytes);
    }
    if (!files[GLUE_FILE]) throw new PluginError("compile_failed", `plugin ${manifest.name}: transpiling produced no glue`);
    glueImports = parseGlueImports(await readFile(join(work, "imports.json"), "utf8"), manifest.name);
  } else {
    await mkdir(out);
  }
  await writeFile(join(out, BLOB_FILE), input.bytes);
  const record: ArtifactRecord = { key, format: manifest.format, manifest, blobSha256: input.sha256, files, glueImports };
  await writeFile(join(out, ARTIFACT_RECORD), JSON.stringify(record, null, 2));
  return record;
}

/** The cached build at `dir` with whether this node's seal vouches for it; undefined when there is none to use. */
async function readCached(dir: string, key: string, seal: CodeSeal, options: CompileOptions): Promise<{ artifact: PluginArtifact; sealed: boolean } | undefined> {
  let artifact: PluginArtifact | undefined;
  try {
    artifact = await readArtifact(dir);
  } catch (error) {
    if (!(error instanceof ClawhiveError)) throw error;
    await options.onRefused?.({ code: "artifact_invalid", message: error.message });
    return undefined;
  }
  if (!artifact || artifact.key !== key) return undefined;
  const mac = await readSeal(dir, seal);
  if (mac === undefined) return { artifact, sealed: false };
  if (seal.verify(SEAL_PURPOSE, canonicalText(recordOf(artifact)), mac)) return { artifact, sealed: true };
  await options.onRefused?.({
    code: "artifact_tampered",
    message: `plugin ${artifact.manifest.name}: the cached build at ${dir} does not carry this node's seal (its record was changed); refused, rebuilt from the installed blob`,
  });
  return undefined;
}

function recordOf(artifact: PluginArtifact): ArtifactRecord {
  const { key, format, manifest, blobSha256, files, glueImports } = artifact;
  return { key, format, manifest, blobSha256, files, glueImports };
}

function parseGlueImports(text: string, name: string): string[] {
  const list: unknown = JSON.parse(text);
  if (!Array.isArray(list) || !list.every((i) => typeof i === "string")) throw new PluginError("compile_failed", `plugin ${name}: transpiling listed no imports`);
  return list as string[];
}

function sealFile(dir: string, seal: CodeSeal): string {
  return join(dir, `seal-${seal.id}`);
}

async function readSeal(dir: string, seal: CodeSeal): Promise<string | undefined> {
  if (!seal.persistent) return seal.remembered(dir);
  try {
    return (await readFile(sealFile(dir, seal), "utf8")).trim();
  } catch {
    return undefined;
  }
}

/** Seals `record` in `dir` (written beside it, or remembered for `memoryPlace` by an ephemeral seal). */
async function writeSeal(dir: string, seal: CodeSeal, record: ArtifactRecord, options: { memoryPlace?: string } = {}): Promise<void> {
  const mac = seal.mac(SEAL_PURPOSE, canonicalText(record));
  if (!seal.persistent) {
    seal.remember(options.memoryPlace ?? dir, mac);
    return;
  }
  const file = sealFile(dir, seal);
  const staging = `${file}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(staging, `${mac}\n`);
  await rename(staging, file).catch(async (error: unknown) => {
    await rm(staging, { force: true });
    throw error;
  });
}

function compileKey(input: CompileInput): string {
  const jco = input.manifest.format === "component" ? `transpile ${toolVersion("@bytecodealliance/jco-transpile")}` : "";
  return sha256(JSON.stringify({ recipe: COMPILE_RECIPE, jco, blob: input.sha256, manifest: input.manifest }));
}

const toolVersion = (name: string): string => packageVersion(name);
