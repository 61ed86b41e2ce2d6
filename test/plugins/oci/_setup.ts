/** What the OCI suites share: a store with an installer, the echo plugin, publisher keys, and publishing to a registry. */
import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { PluginEventInput } from "../../../runtime/audit/index.js";
import { sha256 } from "../../../runtime/plugins/artifact.js";
import { PluginInstaller, pluginMigrations, PluginRegistry } from "../../../runtime/plugins/install/index.js";
import { defaultBuildCacheDir } from "../../../runtime/plugins/locations.js";
import { parseOciReference, pushPlugin, type PushResult } from "../../../runtime/plugins/oci/index.js";
import { parsePrivateKey, signatureText, signPlugin, type PublisherKeyPair } from "../../../runtime/plugins/signing/index.js";
import type { Sandbox } from "../../../runtime/sandbox/index.js";
import { applyMigrations, openStore, systemClock, type Store } from "../../../runtime/store/index.js";
import { tempDir } from "../../helpers/runtime.js";

export interface Place {
  store: Store;
  installer: PluginInstaller;
  registry: PluginRegistry;
  events: PluginEventInput[];
  close: () => Promise<void>;
}

/** A fresh store with an installer whose audit records are kept in `events`; `secrets` answers registry credentials. */
export async function place(sandbox: Sandbox, options: { secrets?: Record<string, string> } = {}): Promise<Place> {
  const dir = await tempDir("clawhive-oci-store-");
  const store = await openStore({ url: `file:${join(dir, "s.db")}` });
  await applyMigrations(store, pluginMigrations, { clock: systemClock });
  const registry = new PluginRegistry(store, { clock: systemClock });
  const events: PluginEventInput[] = [];
  const secrets = options.secrets ?? {};
  const installer = new PluginInstaller({
    registry,
    sandbox,
    cacheDir: defaultBuildCacheDir(),
    audit: async (event) => {
      events.push(event);
    },
    secretValue: async (name) => {
      const value = secrets[name];
      if (value === undefined) throw new Error(`no secret ${name}`);
      return value;
    },
  });
  return { store, installer, registry, events, close: async () => { await store.close(); await rm(dir, { recursive: true, force: true }); } };
}

export interface Publishable {
  component: Uint8Array;
  manifestText: string;
}

/** Pushes `plugin` to `reference`, signed by `key` when given (or with `signature` as it is). */
export async function publish(reference: string, plugin: Publishable, options: { key?: PublisherKeyPair; signature?: string; componentSha256?: string } = {}): Promise<PushResult> {
  const signature =
    options.signature ??
    (options.key === undefined ? undefined : signatureText(signPlugin({ manifestText: plugin.manifestText, componentSha256: options.componentSha256 ?? shaOf(plugin.component) }, parsePrivateKey(options.key.privateKeyPem, "key"))));
  const manifest = JSON.parse(plugin.manifestText) as { name: string; version: string };
  return pushPlugin(parseOciReference(reference), { component: plugin.component, manifestText: plugin.manifestText, ...(signature === undefined ? {} : { signatureText: signature }), format: "component", name: manifest.name, version: manifest.version });
}

function shaOf(bytes: Uint8Array): string {
  return sha256(bytes);
}
