/**
 * Where the command line finds its state: the data dir, the store in it (or a shared libSQL
 * server), and the agent manifests. Every command resolves these the same way — flag, then
 * environment variable, then default — so `--data-dir` means one thing across the CLI.
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import type { ParseArgsConfig } from "node:util";
import { InvalidInputError, NotFoundError } from "../errors.js";
import type { MountHostGuard } from "../../host-proxies/fs/index.js";
import { defaultDataDir } from "../config/data-dir.js";
import { defaultBuildCacheDir, PROJECT_ROOT } from "../plugins/locations.js";
import { runtimeMountGuard } from "../runs/mount-guard.js";
import type { Runtime, RuntimeOptions } from "../runtime.js";
import { progressPrinter } from "./progress.js";
import { parseStoreUrl } from "../store/url.js";
import type { Store } from "../store/index.js";

/** The parseArgs options of every command that reads the store. */
export const STORE_FLAGS = {
  "data-dir": { type: "string" },
  store: { type: "string" },
} as const satisfies NonNullable<ParseArgsConfig["options"]>;

export const STORE_FLAGS_HELP = `  --data-dir DIR    where state lives (env CLAWHIVE_DATA_DIR; default the nearest .clawhive
                    with a store from here up, else the project's .clawhive; 'clawhive init')
  --store URL       the store (default file:<data dir>/clawhive.db; env CLAWHIVE_STORE_URL);
                    a libsql:// or https:// server takes its token from CLAWHIVE_STORE_AUTH_TOKEN`;

/** An empty variable counts as unset: `CLAWHIVE_DATA_DIR= clawhive …` should not mean the cwd. */
function fromEnv(name: string): string | undefined {
  const value = process.env[name];
  return value === undefined || value === "" ? undefined : value;
}

/**
 * `CLAWHIVE_STORE_TIMEOUT_MS` (the setting `store.timeout_ms`), checked like the config's:
 * a command pointed at a server that stops answering fails within it.
 */
export function storeTimeoutFromEnv(): number | undefined {
  const text = fromEnv("CLAWHIVE_STORE_TIMEOUT_MS");
  if (text === undefined) return undefined;
  const value = /^\d{1,7}$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= 100 && value <= 3_600_000)) {
    throw new InvalidInputError(`CLAWHIVE_STORE_TIMEOUT_MS: expected a whole number of milliseconds from 100 to 3600000, got ${JSON.stringify(text)}`, { field: "CLAWHIVE_STORE_TIMEOUT_MS" });
  }
  return value;
}

/** The options every command's store is opened with, besides its URL: the server's token, the deadline. */
function storeAccess(): { authToken?: string; timeoutMs?: number } {
  const authToken = fromEnv("CLAWHIVE_STORE_AUTH_TOKEN");
  const timeoutMs = storeTimeoutFromEnv();
  return { ...(authToken === undefined ? {} : { authToken }), ...(timeoutMs === undefined ? {} : { timeoutMs }) };
}

function flag(values: Readonly<Record<string, unknown>>, name: string): string | undefined {
  const value = values[name];
  return typeof value === "string" ? value : undefined;
}

/**
 * `--data-dir`, else `CLAWHIVE_DATA_DIR`, else the nearest `.clawhive` holding a store from the
 * working folder up, else the project's `.clawhive` (config/data-dir.ts); absolute.
 */
export function resolveDataDir(values: Readonly<Record<string, unknown>>): string {
  const given = flag(values, "data-dir") ?? fromEnv("CLAWHIVE_DATA_DIR");
  return given === undefined ? defaultDataDir(process.cwd()) : resolve(given);
}

/** `--store`, else `CLAWHIVE_STORE_URL`, else `file:<data dir>/clawhive.db`. */
export function resolveStoreUrl(values: Readonly<Record<string, unknown>>): string {
  return flag(values, "store") ?? fromEnv("CLAWHIVE_STORE_URL") ?? `file:${join(resolveDataDir(values), "clawhive.db")}`;
}

/** The forbidden mount roots of the runtime these flags describe (runtime/runs/mount-guard.ts). */
export function resolveMountGuard(values: Readonly<Record<string, unknown>>): MountHostGuard {
  return runtimeMountGuard({
    dataDir: resolveDataDir(values),
    storeUrl: resolveStoreUrl(values),
    secretKeyFile: fromEnv("CLAWHIVE_SECRET_KEY_FILE"),
    buildCacheDir: defaultBuildCacheDir(resolveDataDir(values)),
  });
}

/** `--agents`, else `CLAWHIVE_AGENTS_DIR`, else `capabilities` in the project; absolute. */
export function resolveAgentsDir(values: Readonly<Record<string, unknown>>): string {
  return resolve(flag(values, "agents") ?? fromEnv("CLAWHIVE_AGENTS_DIR") ?? join(PROJECT_ROOT, "capabilities"));
}

/** The store URL the flags name; a file store must exist (`not_found` otherwise). */
export function requireExistingStore(values: Readonly<Record<string, unknown>>): string {
  const url = resolveStoreUrl(values);
  const location = parseStoreUrl(url);
  if (location.kind === "file" && !existsSync(location.path)) {
    throw new NotFoundError(`no store at ${location.path}: pass the runtime's --data-dir or --store (or set CLAWHIVE_DATA_DIR)`);
  }
  return url;
}

/**
 * Opens the store a command reads. A file store must already exist: a read-only command pointed
 * at the wrong data dir should say so, not create an empty database there and report nothing.
 */
export async function openExistingStore(values: Readonly<Record<string, unknown>>): Promise<Store> {
  const url = requireExistingStore(values);
  const { openStore } = await import("../store/index.js");
  return openStore({ url, ...storeAccess() });
}

/** What a command adds to the runtime `openRuntime` opens. */
export interface OpenRuntimeExtra extends Pick<RuntimeOptions, "skillsDir" | "secretKeyFile" | "memory" | "pluginDirs" | "continueDecidedRuns" | "adoptOrphans"> {
  /**
   * Fill the configured pool of ready instances once (`sandbox.pool_size`, default 1): for a
   * command serving one session of many calls (`mcp serve`), whose first call then finds its
   * instance made while the client was still starting; its workers start with the sandbox, their
   * boot overlapping the store's opening. Not refilled: the session's run keeps the instance it
   * took. A one-shot command makes none it would throw away.
   */
  pooled?: boolean;
  /**
   * The command makes one ToolCall and ends (`call`): one sandbox worker holds its one instance.
   * A second would boot a Node thread (its CPU is the command's) that nothing ever uses.
   */
  oneShot?: boolean;
}

/**
 * A runtime on the store the flags name (direct mode): the data dir, store and agents folder
 * resolved as every command does, the sandbox as the configuration sets it (file and
 * `CLAWHIVE_*` variables, as `serve` reads them) but with no pooled instances unless `pooled`
 * (a command makes few), progress on stderr.
 */
export async function openRuntime(values: Readonly<Record<string, unknown>>, options: OpenRuntimeExtra = {}): Promise<Runtime> {
  const { pooled = false, oneShot = false, ...extra } = options;
  const { authToken, timeoutMs } = storeAccess();
  const [{ Runtime }, { commandSettings }] = await Promise.all([import("../runtime.js"), import("./command-config.js")]);
  // Its model calls and traces go where the configuration says (command-config.ts).
  const settings = await commandSettings({ ...(typeof values.config === "string" ? { file: values.config } : {}) });
  const progress = progressPrinter(process.stderr);
  return Runtime.create({
    ...settings,
    dataDir: resolveDataDir(values),
    storeUrl: resolveStoreUrl(values),
    ...(authToken === undefined ? {} : { storeAuthToken: authToken }),
    ...(timeoutMs === undefined ? {} : { storeTimeoutMs: timeoutMs }),
    agentsDir: resolveAgentsDir(values),
    sandbox: pooled ? { ...settings.sandbox, refillPool: false, startWorkers: true } : { ...settings.sandbox, poolSize: 0, ...(oneShot ? { workers: 1 } : {}) },
    onProgress: progress,
    ...extra,
  }).finally(() => progress.stop());
}

/**
 * Runs `body` on the existing store the flags name, then closes it. No store means nothing to
 * read or change: the message is printed and the exit code is 1.
 */
export async function withExistingStore(values: Readonly<Record<string, unknown>>, body: (store: Store) => Promise<number>): Promise<number> {
  let store: Store;
  try {
    store = await openExistingStore(values);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    console.error(`clawhive: ${error.message}`);
    return 1;
  }
  try {
    return await body(store);
  } finally {
    await store.close();
  }
}
