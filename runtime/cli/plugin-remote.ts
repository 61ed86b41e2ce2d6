/**
 * `clawhive plugin` through a server's API. The server installs a .tgz package (uploaded) or
 * the https URL of one (downloaded by the server, checked against its sha256); every other local
 * source — a package folder, a source folder (built here first), a .wasm with its manifest — is
 * read and checked here as the direct mode reads it, then packed into a .tgz and uploaded.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { create as tarCreate } from "tar";
import { InvalidInputError } from "../errors.js";
import { readPackage } from "../plugins/install/index.js";
import { defaultBuildCacheDir } from "../plugins/locations.js";
import { segment, ServerError } from "./client.js";
import type { ApiClient, Query, RequestOptions } from "./client.js";
import { detailOf, formatBytes, summaryOf } from "./plugin-view.js";
import type { ApiPlugin, ApiPluginDetail, InstallReport, PluginDetail, PluginSummary } from "./plugin-view.js";

/** What goes to the server: the request's body (and query) for one source. */
interface Upload {
  readonly options: RequestOptions;
  /** For the progress line: what is sent and how big it is. */
  readonly what: string;
}

interface InstallAnswer {
  action: string;
  plugin: ApiPlugin;
  diff?: { lines: string[] };
}

export interface SourceOptions {
  sha256?: string;
  manifestFile?: string;
}

/** The request that installs (or upgrades to) `source`; a local source that is not a .tgz is packed into one here. */
export async function uploadOf(source: string, options: SourceOptions & { query?: Query; allowSimilarName?: boolean }): Promise<Upload> {
  // An install's allowance for a confusable name: in the JSON body of a URL install, the query of an upload.
  const similar = options.allowSimilarName === true;
  const query = { ...(options.query ?? {}), ...(similar ? { allow_similar_name: "true" } : {}) };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(source)) {
    if (!source.startsWith("https://")) throw new InvalidInputError(`source ${source}: only https URLs are installed`, { field: "source" });
    if (options.sha256 === undefined) throw new InvalidInputError(`source ${source}: a URL is installed only with its sha256 (--sha256)`, { field: "sha256" });
    if (options.manifestFile !== undefined) {
      throw new InvalidInputError("--manifest: through a server a URL must be a .tgz package (plugin.json and plugin.wasm); download a bare .wasm and install the file", { field: "manifest" });
    }
    const json = { url: source, sha256: options.sha256, ...(similar ? { allow_similar_name: true } : {}) };
    return { options: { json, query: options.query ?? {} }, what: `the URL ${source}` };
  }
  const bytes = await readFile(resolve(source)).catch(() => undefined);
  if (bytes !== undefined && bytes[0] === 0x1f && bytes[1] === 0x8b) {
    // A .tgz goes as it is: the server checks it against --sha256 and reads it as the direct mode would.
    return {
      options: { raw: { bytes, mediaType: "application/gzip" }, query: { ...query, ...(options.sha256 === undefined ? {} : { sha256: options.sha256 }) } },
      what: `${source} (${formatBytes(bytes.length)})`,
    };
  }
  const pkg = await readPackage(source, {
    ...(options.sha256 === undefined ? {} : { sha256: options.sha256 }),
    ...(options.manifestFile === undefined ? {} : { manifestFile: options.manifestFile }),
    cacheDir: defaultBuildCacheDir(),
    onProgress: (line) => console.error(line),
  });
  const tgz = await pack(pkg.manifestText, pkg.bytes);
  return { options: { raw: { bytes: tgz, mediaType: "application/gzip" }, query }, what: `${pkg.manifest.name}@${pkg.manifest.version} from ${source}, packed (${formatBytes(tgz.length)})` };
}

/** plugin.json and plugin.wasm in a .tgz, written in a private temp folder and read back. */
async function pack(manifestText: string, wasm: Uint8Array): Promise<Uint8Array> {
  const dir = await mkdtemp(join(tmpdir(), "clawhive-pack-"));
  try {
    await writeFile(join(dir, "plugin.json"), manifestText, { mode: 0o600 });
    await writeFile(join(dir, "plugin.wasm"), wasm, { mode: 0o600 });
    const file = join(dir, "package.tgz");
    await tarCreate({ gzip: true, file, cwd: dir, portable: true }, ["plugin.json", "plugin.wasm"]);
    return new Uint8Array(await readFile(file));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function report(answer: InstallAnswer): InstallReport {
  return { action: answer.action, plugin: summaryOf(answer.plugin), ...(answer.diff ? { diff: answer.diff.lines } : {}) };
}

export async function installOnServer(api: ApiClient, source: string, options: SourceOptions & { allowSimilarName?: boolean }): Promise<InstallReport> {
  const { allowSimilarName, ...read } = options;
  const upload = await uploadOf(source, { ...read, ...(allowSimilarName ? { allowSimilarName } : {}) });
  console.error(`sending ${upload.what} to ${api.target.url}; the server verifies and installs it`);
  return report(await api.request<InstallAnswer>("POST", "/v1/plugins", upload.options));
}

/** A widening upgrade the server refused without `accept`: its permission diff. */
export class ServerUpgradeNeedsAcceptance extends Error {
  readonly lines: readonly string[];
  readonly retry: () => Promise<InstallReport>;
  constructor(lines: readonly string[], retry: () => Promise<InstallReport>) {
    super("upgrade_needs_acceptance");
    this.lines = lines;
    this.retry = retry;
  }
}

export async function upgradeOnServer(api: ApiClient, options: SourceOptions & { name: string; source: string; accept: boolean }): Promise<InstallReport> {
  const { name, source } = options;
  const path = `/v1/plugins/${segment(name)}/upgrade`;
  const send = async (accept: boolean) => {
    const upload = await uploadOf(source, { ...options, query: { accept: accept ? "true" : undefined } });
    console.error(`sending ${upload.what} to ${api.target.url}; the server verifies it${accept ? " and upgrades" : ", compares its permissions and upgrades"} ${name}`);
    return report(await api.request<InstallAnswer>("POST", path, upload.options));
  };
  try {
    return await send(options.accept);
  } catch (error) {
    if (!(error instanceof ServerError && error.code === "upgrade_needs_acceptance")) throw error;
    const diff = error.body.diff as { lines?: unknown } | undefined;
    const lines = Array.isArray(diff?.lines) ? diff.lines.map(String) : [error.message];
    throw new ServerUpgradeNeedsAcceptance(lines, () => send(true));
  }
}

export async function listOnServer(api: ApiClient): Promise<PluginSummary[]> {
  return (await api.get<{ plugins: ApiPlugin[] }>("/v1/plugins")).plugins.map(summaryOf);
}

export async function infoOnServer(api: ApiClient, name: string): Promise<PluginDetail> {
  const { plugin } = await api.get<{ plugin: ApiPluginDetail }>(`/v1/plugins/${segment(name)}`);
  return detailOf(plugin);
}

export async function removeOnServer(api: ApiClient, name: string): Promise<PluginSummary> {
  return summaryOf((await api.request<{ removed: ApiPlugin }>("DELETE", `/v1/plugins/${segment(name)}`)).removed);
}
