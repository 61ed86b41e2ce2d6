/** Temporary directories and file stores for tests: created under os.tmpdir(), removed after. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "../../runtime/store/index.js";
import type { OpenStoreOptions, Store } from "../../runtime/store/index.js";

export interface TempDir {
  readonly path: string;
  /** A `file:` URL for `name` inside the directory. */
  url(name?: string): string;
  remove(): Promise<void>;
}

export async function tempDir(prefix = "clawhive-store-"): Promise<TempDir> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return {
    path,
    url: (name = "store.db") => `file:${join(path, name)}`,
    remove: () => rm(path, { recursive: true, force: true }),
  };
}

export interface TempStore {
  readonly store: Store;
  readonly dir: TempDir;
  cleanup(): Promise<void>;
}

/** A file store in a fresh temp dir; `cleanup` closes it and removes the dir. */
export async function openTempStore(options: Omit<OpenStoreOptions, "url"> = {}): Promise<TempStore> {
  const dir = await tempDir();
  const store = await openStore({ ...options, url: dir.url() });
  return {
    store,
    dir,
    cleanup: async () => {
      await store.close();
      await dir.remove();
    },
  };
}
