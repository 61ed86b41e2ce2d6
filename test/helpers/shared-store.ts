/**
 * One store several runtime nodes of a test share: a file in the test's data dir, or a libSQL
 * server (sqld); and a node on it, as the fencing and takeover suites start them.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { Runtime, type RuntimeOptions } from "../../runtime/index.js";
import { FILES_PLUGIN, PROBE_PLUGIN } from "./runtime.js";
import { startSqld } from "./sqld.js";

export interface SharedStore {
  readonly url: string;
  /** The server's token (a file store needs none). */
  readonly authToken: string | undefined;
  stop(): Promise<void>;
}

/** A file `shared.db` in `dataDir`, or a libSQL server with a token when `onServer`. */
export async function sharedStore(dataDir: string, onServer: boolean): Promise<SharedStore> {
  if (!onServer) return { url: `file:${join(dataDir, "shared.db")}`, authToken: undefined, stop: async () => undefined };
  const server = await startSqld({ auth: true });
  return { url: server.url, authToken: server.authToken, stop: () => server.stop() };
}

/** The store options of a client of `shared` (openStore's). */
export function storeAccess(shared: SharedStore): { url: string; authToken?: string } {
  return { url: shared.url, ...(shared.authToken === undefined ? {} : { authToken: shared.authToken }) };
}

/** Runtime node `name` on `shared` (or on `options.store`): its own agents folder, the test plugins, no pooled instances. */
export async function nodeOn(shared: SharedStore, dataDir: string, name: string, options: Partial<RuntimeOptions> = {}): Promise<Runtime> {
  const agentsDir = join(dataDir, `agents-${name}`);
  await mkdir(agentsDir);
  return Runtime.create({
    dataDir,
    agentsDir,
    pluginDirs: [FILES_PLUGIN, PROBE_PLUGIN],
    sandbox: { poolSize: 0 },
    ...(options.store !== undefined ? {} : { storeUrl: shared.url, ...(shared.authToken === undefined ? {} : { storeAuthToken: shared.authToken }) }),
    ...options,
  });
}
