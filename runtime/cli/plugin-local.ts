/** Plugins changed on the store directly, without a runtime: the registry, and an installer with its own sandbox. */
import { mkdir } from "node:fs/promises";
import { userInfo } from "node:os";
import { openAuditLog, type AuditLog } from "../audit/index.js";
import { CodeSeal } from "../plugins/seal.js";
import { openSecretStore } from "../secrets/index.js";
import { defaultBuildCacheDir } from "../plugins/locations.js";
import { PluginInstaller, pluginMigrations, PluginRegistry } from "../plugins/install/index.js";
import { RunRecords, runMigrations } from "../runs/records.js";
import { Sandbox } from "../sandbox/index.js";
import { applyMigrations, openStore, systemClock, type Store } from "../store/index.js";
import { openExistingStore, resolveDataDir, resolveStoreUrl } from "./store-path.js";

/** Who a change made from this command line is audited as. */
export function cliPrincipal(): string {
  let user: string;
  try {
    user = userInfo().username;
  } catch {
    user = process.env.USER ?? "unknown";
  }
  return `cli:${user || "unknown"}`;
}

/** The secret key, as every command that opens the secrets finds it: env, key file, or the data dir's. */
function secretKeyConfig(values: Record<string, unknown>): { dataDir: string; keyFromEnv?: string; keyFile?: string } {
  const keyFromEnv = process.env.CLAWHIVE_SECRET_KEY || undefined;
  const keyFile = process.env.CLAWHIVE_SECRET_KEY_FILE || undefined;
  return { dataDir: resolveDataDir(values), ...(keyFromEnv === undefined ? {} : { keyFromEnv }), ...(keyFile === undefined ? {} : { keyFile }) };
}

async function openPluginStore(values: Record<string, unknown>, create: boolean): Promise<Store> {
  let store: Store;
  if (create) {
    await mkdir(resolveDataDir(values), { recursive: true });
    const authToken = process.env.CLAWHIVE_STORE_AUTH_TOKEN || undefined;
    store = await openStore({ url: resolveStoreUrl(values), ...(authToken ? { authToken } : {}) });
  } else {
    store = await openExistingStore(values);
  }
  try {
    await applyMigrations(store, runMigrations, { clock: systemClock });
    await applyMigrations(store, pluginMigrations, { clock: systemClock });
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}

export async function withRegistry<T>(values: Record<string, unknown>, work: (registry: PluginRegistry) => Promise<T>): Promise<T> {
  const store = await openPluginStore(values, false);
  try {
    return await work(new PluginRegistry(store, { clock: systemClock }));
  } finally {
    await store.close();
  }
}

/** An installer on the store directly (no runtime): a one-worker sandbox reads `describe`. */
export async function withInstaller(
  values: Record<string, unknown>,
  work: (installer: PluginInstaller) => Promise<number>,
  options: { sandbox?: boolean; create?: boolean } = {},
): Promise<number> {
  const store = await openPluginStore(values, options.create ?? true);
  const sandbox = new Sandbox({ workers: options.sandbox === false ? 0 : 1, poolSize: 0 });
  let audit: AuditLog | undefined;
  try {
    const records = new RunRecords(store);
    // The store's secret key seals the compiled builds this command makes or trusts, as a
    // runtime's does; the audit records every change, redacting the store's secret values.
    const secrets = await openSecretStore(store, { ...secretKeyConfig(values), clock: systemClock });
    const secretValues = await secrets.values();
    const log = await openAuditLog(store, { clock: systemClock, redaction: { secrets: () => secretValues } });
    audit = log;
    const installer = new PluginInstaller({
      registry: new PluginRegistry(store, { clock: systemClock }),
      sandbox,
      cacheDir: defaultBuildCacheDir(),
      onProgress: (line) => console.error(line),
      runsUsing: (name) => records.unfinishedUsing(name),
      seal: CodeSeal.fromSecrets(secrets),
      audit: (event) => log.appendPluginEvent(event),
    });
    return await work(installer);
  } finally {
    await audit?.close();
    await sandbox.close();
    await store.close();
  }
}
