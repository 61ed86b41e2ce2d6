import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import * as v from "valibot";
import { PluginError } from "../errors.js";
import { PluginFormatSchema, PluginManifestSchema, type PluginFormat, type PluginManifest } from "./manifest.js";

/**
 * A compiled plugin, ready to load: made only from the installed blob's bytes. For a component:
 * the blob, its transpiled glue and core modules; for an Extism plugin: the blob (a core
 * module). Every file is recorded with its sha256 so that a load reads exactly what compiling
 * wrote.
 */
export interface PluginArtifact {
  /** Content key of the compile inputs (blob, manifest, recipe, tool versions). */
  key: string;
  dir: string;
  format: PluginFormat;
  manifest: PluginManifest;
  /** sha256 of the installed blob (`plugin.wasm` in `dir`). */
  blobSha256: string;
  /** File name → sha256, for the glue (`plugin.js`) and every core module (components only). */
  files: Record<string, string>;
  /** What the glue imports from the host, as jco listed it when transpiling (components only). */
  glueImports: string[];
}

const SHA = v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/));
const RecordSchema = v.strictObject({
  key: v.string(),
  format: PluginFormatSchema,
  manifest: PluginManifestSchema,
  blobSha256: SHA,
  files: v.record(v.pipe(v.string(), v.regex(/^[A-Za-z0-9._-]+$/)), SHA),
  glueImports: v.array(v.pipe(v.string(), v.maxLength(512))),
});
export type ArtifactRecord = v.InferOutput<typeof RecordSchema>;

export const ARTIFACT_RECORD = "artifact.json";
export const GLUE_FILE = "plugin.js";
/** The installed blob, as kept beside what was compiled from it. */
export const BLOB_FILE = "plugin.wasm";

export function sha256(bytes: Uint8Array | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** Reads an artifact record; `undefined` when the folder holds no complete build. */
export async function readArtifact(dir: string): Promise<PluginArtifact | undefined> {
  let text: string;
  try {
    text = await readFile(join(dir, ARTIFACT_RECORD), "utf8");
  } catch {
    return undefined;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    raw = undefined;
  }
  const parsed = v.safeParse(RecordSchema, raw);
  if (!parsed.success) throw new PluginError("artifact_invalid", `${join(dir, ARTIFACT_RECORD)}: not a valid build record; remove the folder to rebuild it`);
  return { ...parsed.output, dir };
}

export interface LoadedArtifactFiles {
  /** The component's glue (components only). */
  glue?: string;
  coreModules: Record<string, Uint8Array>;
}

/**
 * Reads the glue and core modules, verifying each against its recorded hash. What is returned
 * is exactly what was hashed: callers compile and import these bytes, never the files again.
 * An Extism plugin's one core module is its blob.
 */
export async function readVerifiedFiles(artifact: PluginArtifact): Promise<LoadedArtifactFiles> {
  const coreModules: Record<string, Uint8Array> = {};
  let glue: string | undefined;
  const expected = artifact.format === "extism" ? { [BLOB_FILE]: artifact.blobSha256 } : artifact.files;
  for (const [name, hash] of Object.entries(expected)) {
    const bytes = await readVerified(artifact, name, hash);
    if (name === GLUE_FILE) glue = bytes.toString("utf8");
    else coreModules[name] = new Uint8Array(bytes);
  }
  if (artifact.format === "component" && glue === undefined) throw new PluginError("artifact_invalid", `plugin ${artifact.manifest.name}: the build has no ${GLUE_FILE}`);
  return glue === undefined ? { coreModules } : { glue, coreModules };
}

/** The installed blob kept with the artifact, checked against its sha256. */
export async function readVerifiedBlob(artifact: PluginArtifact): Promise<Buffer> {
  return readVerified(artifact, BLOB_FILE, artifact.blobSha256);
}

async function readVerified(artifact: PluginArtifact, name: string, expected: string): Promise<Buffer> {
  const bytes = await readFile(join(artifact.dir, name));
  const actual = sha256(bytes);
  if (actual !== expected) {
    throw new PluginError(
      "artifact_tampered",
      `plugin ${artifact.manifest.name}: ${name} does not match its recorded sha256 (expected ${expected}, got ${actual}); remove the cached build or reinstall the plugin`,
    );
  }
  return bytes;
}
