/**
 * What a plugin's bundle was made of, remembered beside the build cache: the real path and
 * sha256 of every file esbuild read, and the names in each of their folders. When none of them
 * changed, the bundle (and so the build's content key) is the one already recorded, and a
 * runtime start needs neither esbuild nor a bundle to see its plugins are up to date.
 */
import { mkdir, readdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { sha256 } from "./artifact.js";
import { packageVersion } from "./package-dir.js";

/** Bump when the record's meaning changes, so old records stop matching; a new esbuild bundles anew. */
const RECORD = `1 esbuild ${packageVersion("esbuild")}`;

export interface BundleInputs {
  /** sha256 of the bundle these inputs produced. */
  bundleSha: string;
  /** [real path, sha256 of its bytes]. */
  files: Array<[string, string]>;
  /** [folder, sha256 of its sorted names]: a file added beside an input may change resolution. */
  folders: Array<[string, string]>;
}

function recordPath(cacheDir: string, root: string, source: string): string {
  return join(cacheDir, "inputs", `${sha256(`${root}\n${source}`).slice(0, 32)}.json`);
}

/** The recorded bundle's sha256 when every input is as recorded; otherwise `undefined`. */
export async function recordedBundleSha(cacheDir: string, root: string, source: string): Promise<string | undefined> {
  let record: Partial<BundleInputs> & { record?: unknown };
  try {
    record = JSON.parse(await readFile(recordPath(cacheDir, root, source), "utf8")) as typeof record;
  } catch {
    return undefined;
  }
  if (record.record !== RECORD || typeof record.bundleSha !== "string" || !Array.isArray(record.files) || !Array.isArray(record.folders)) return undefined;
  try {
    const checks = [
      ...record.files.map(async ([path, sha]) => sha256(await readFile(path)) === sha),
      ...record.folders.map(async ([folder, sha]) => (await folderSha(folder)) === sha),
    ];
    return (await Promise.all(checks)).every(Boolean) ? record.bundleSha : undefined;
  } catch {
    return undefined; // an input is gone: bundle again
  }
}

/** Records what `bundle` was made of (best effort: without a record the next start bundles). */
export async function recordBundleInputs(cacheDir: string, root: string, source: string, bundle: string, inputs: readonly string[]): Promise<void> {
  try {
    const files = await Promise.all(inputs.map(async (path): Promise<[string, string]> => [path, sha256(await readFile(path))]));
    const folderNames = [...new Set(inputs.map((path) => dirname(path)))].sort();
    const folders = await Promise.all(folderNames.map(async (folder): Promise<[string, string]> => [folder, await folderSha(folder)]));
    const file = recordPath(cacheDir, root, source);
    await mkdir(dirname(file), { recursive: true });
    const temp = `${file}.${process.pid}.tmp`;
    await writeFile(temp, JSON.stringify({ record: RECORD, bundleSha: sha256(bundle), files, folders }));
    await rename(temp, file);
  } catch {
    // The record only saves a later bundle step.
  }
}

async function folderSha(folder: string): Promise<string> {
  return sha256((await readdir(folder)).sort().join("\n"));
}
