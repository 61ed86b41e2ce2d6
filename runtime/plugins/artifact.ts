import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import * as v from "valibot";
import { PluginError } from "../errors.js";
import { PluginManifestSchema, type PluginManifest } from "./manifest.js";

/**
 * A built plugin: the component, its transpiled glue and core modules, each recorded with its
 * sha256 so that a load reads exactly what the build wrote.
 */
export interface PluginArtifact {
  /** Content key of the build inputs; names the cache folder. */
  key: string;
  dir: string;
  manifest: PluginManifest;
  componentSha256: string;
  /** File name → sha256, for the glue (`plugin.js`) and every core module. */
  files: Record<string, string>;
}

const RecordSchema = v.strictObject({
  key: v.string(),
  manifest: PluginManifestSchema,
  componentSha256: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/)),
  files: v.record(v.pipe(v.string(), v.regex(/^[A-Za-z0-9._-]+$/)), v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/))),
});

export const ARTIFACT_RECORD = "artifact.json";
export const GLUE_FILE = "plugin.js";

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
  const parsed = v.safeParse(RecordSchema, JSON.parse(text));
  if (!parsed.success) throw new PluginError("artifact_invalid", `${join(dir, ARTIFACT_RECORD)}: not a valid build record`);
  return { ...parsed.output, dir };
}

export interface LoadedArtifactFiles {
  glue: string;
  coreModules: Record<string, Uint8Array>;
}

/**
 * Reads the glue and core modules, verifying each against its recorded hash. What is returned
 * is exactly what was hashed: callers compile and import these bytes, never the files again.
 */
export async function readVerifiedFiles(artifact: PluginArtifact): Promise<LoadedArtifactFiles> {
  const coreModules: Record<string, Uint8Array> = {};
  let glue: string | undefined;
  for (const [name, expected] of Object.entries(artifact.files)) {
    const bytes = await readFile(join(artifact.dir, name));
    const actual = sha256(bytes);
    if (actual !== expected) {
      throw new PluginError(
        "artifact_tampered",
        `plugin ${artifact.manifest.name}: ${name} does not match its recorded sha256 (expected ${expected}, got ${actual}); rebuild or reinstall the plugin`,
      );
    }
    if (name === GLUE_FILE) glue = bytes.toString("utf8");
    else coreModules[name] = new Uint8Array(bytes);
  }
  if (glue === undefined) throw new PluginError("artifact_invalid", `plugin ${artifact.manifest.name}: the build has no ${GLUE_FILE}`);
  return { glue, coreModules };
}
