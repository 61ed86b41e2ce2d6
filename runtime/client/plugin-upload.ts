/**
 * What a client over HTTP sends for a plugin source. The server installs a .tgz package
 * (uploaded) or the https URL of one (downloaded by the server, checked against its sha256);
 * every other local source — a package folder, a source folder (built here first), a .wasm with
 * its manifest — is read and checked here, then packed into a .tgz and uploaded. A server never
 * reads a path the client names.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { create as tarCreate } from "tar";
import { InvalidInputError } from "../errors.js";
import { readPackage } from "../plugins/install/index.js";
import { defaultBuildCacheDir } from "../plugins/locations.js";
import type { Query, RequestOptions } from "./transport.js";

export interface PluginSourceOptions {
  /** The expected sha256 of the source (the .tgz or .wasm as downloaded). Required for a URL. */
  sha256?: string;
  /** A bare .wasm's plugin.json (default plugin.json beside it). */
  manifestFile?: string;
}

export interface PluginChangeOptions extends PluginSourceOptions {
  /** Progress lines (a source built, a package sent). */
  onProgress?: (line: string) => void;
  /** Install although the signature is refused (audited); for oci://, the secret with the registry's username:password, and plain http off loopback. */
  allowUnsigned?: boolean;
  registrySecret?: string;
  plainHttp?: boolean;
}

/** What goes to the server: the request's body (and query) for one source. */
export interface Upload {
  readonly options: RequestOptions;
  /** For the progress line: what is sent and how big it is. */
  readonly what: string;
}

/** The request that installs (or upgrades to) `source`; a local source that is not a .tgz is packed into one here. */
export async function uploadOf(
  source: string,
  options: PluginSourceOptions & { query?: Query; allowSimilarName?: boolean; onProgress?: (line: string) => void },
): Promise<Upload> {
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
    // A .tgz goes as it is: the server checks it against the sha256 and reads it as a runtime reads a local one.
    return {
      options: { raw: { bytes, mediaType: "application/gzip" }, query: { ...query, ...(options.sha256 === undefined ? {} : { sha256: options.sha256 }) } },
      what: `${source} (${formatBytes(bytes.length)})`,
    };
  }
  const pkg = await readPackage(source, {
    ...(options.sha256 === undefined ? {} : { sha256: options.sha256 }),
    ...(options.manifestFile === undefined ? {} : { manifestFile: options.manifestFile }),
    cacheDir: defaultBuildCacheDir(),
    ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
  });
  const tgz = await pack(pkg.manifestText, pkg.bytes, pkg.signature);
  return { options: { raw: { bytes: tgz, mediaType: "application/gzip" }, query }, what: `${pkg.manifest.name}@${pkg.manifest.version} from ${source}, packed (${formatBytes(tgz.length)})` };
}

/** plugin.json and plugin.wasm (and the publisher's plugin.sig) in a .tgz, written in a private temp folder and read back. */
async function pack(manifestText: string, wasm: Uint8Array, signature: Uint8Array | undefined): Promise<Uint8Array> {
  const dir = await mkdtemp(join(tmpdir(), "clawhive-pack-"));
  try {
    await writeFile(join(dir, "plugin.json"), manifestText, { mode: 0o600 });
    await writeFile(join(dir, "plugin.wasm"), wasm, { mode: 0o600 });
    if (signature !== undefined) await writeFile(join(dir, "plugin.sig"), signature, { mode: 0o600 });
    const file = join(dir, "package.tgz");
    await tarCreate({ gzip: true, file, cwd: dir, portable: true }, signature === undefined ? ["plugin.json", "plugin.wasm"] : ["plugin.json", "plugin.wasm", "plugin.sig"]);
    return new Uint8Array(await readFile(file));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export function formatBytes(n: number): string {
  return n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MiB` : `${(n / 1024).toFixed(1)} KiB`;
}
