/**
 * Builds several plugin folders at once (a first start, `npm run build:plugins`): only those
 * without an up-to-date cached build are built, a few at a time (componentizing is one CPU-bound
 * child process each), with one progress line per built plugin: `[n/N] name … elapsed`.
 */
import { availableParallelism } from "node:os";
import { buildComponent, cachedBuildSha } from "./build.js";
import { BuildReads } from "./build-reads.js";

export interface BuildAllOptions {
  cacheDir: string;
  onProgress?: (line: string) => void;
  /** Builds at once; default the machine's parallelism, at most 4. */
  concurrency?: number;
}

export interface BuildAllResult {
  dir: string;
  /** The plugin's name and its component's sha256 (cached builds are not read). */
  built?: { name: string; sha256: string; cached: boolean };
  error?: Error;
}

/** Every folder's build (cached or made now), in `dirs` order; a failure is reported, not thrown. */
export async function buildAll(dirs: readonly string[], options: BuildAllOptions): Promise<BuildAllResult[]> {
  const progress = options.onProgress ?? (() => {});
  const stale: string[] = [];
  const results = new Map<string, BuildAllResult>();
  // One pass: the project's SDK and WIT are read once for every folder's check and build.
  const reads = new BuildReads();
  for (const dir of dirs) {
    const cached = await cachedBuildSha(dir, { cacheDir: options.cacheDir, reads }).catch(() => undefined);
    if (cached) results.set(dir, { dir, built: { ...cached, cached: true } });
    else stale.push(dir);
  }
  const started = Date.now();
  let done = 0;
  if (stale.length > 0) progress(`plugins: building ${stale.length} of ${dirs.length} (the others are up to date)`);
  const queue = [...stale];
  const concurrency = Math.max(1, Math.min(options.concurrency ?? Math.min(4, availableParallelism()), queue.length));
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let dir = queue.shift(); dir !== undefined; dir = queue.shift()) {
        const one = Date.now();
        try {
          const built = await buildComponent(dir, { cacheDir: options.cacheDir, reads });
          done++;
          progress(`plugins: [${done}/${stale.length}] ${built.manifest.name} built in ${seconds(Date.now() - one)} (${(built.bytes.length / 1048576).toFixed(1)} MiB), ${seconds(Date.now() - started)} elapsed`);
          results.set(dir, { dir, built: { name: built.manifest.name, sha256: built.sha256, cached: false } });
        } catch (error) {
          done++;
          progress(`plugins: [${done}/${stale.length}] ${dir} failed after ${seconds(Date.now() - one)}`);
          results.set(dir, { dir, error: error as Error });
        }
      }
    }),
  );
  return dirs.map((dir) => results.get(dir)!);
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
