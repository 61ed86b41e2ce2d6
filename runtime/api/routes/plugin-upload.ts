/** A package a request sends: an upload written to a private temp file, or an https URL with its sha256. */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as v from "valibot";
import { ClawhiveError, InvalidInputError } from "../../errors.js";
import type { DownloadOptions, PluginPackage } from "../../plugins/install/index.js";
import type { Runtime } from "../../runtime.js";
import type { RawBody } from "./route.js";

export const SHA256 = v.pipe(v.string(), v.regex(/^(?:sha256[:-])?[0-9a-fA-F]{64}$/, "expected the package's sha256: 64 hex digits"));

export const FromUrl = v.strictObject({
  url: v.pipe(
    v.string("expected the https URL of a .tgz package"),
    v.maxLength(2048, "expected a URL of at most 2048 characters"),
    v.check((s) => URL.canParse(s) && new URL(s).protocol === "https:", "expected the https URL of a .tgz package"),
  ),
  sha256: SHA256,
  /** Install even though the name is confusable with an installed plugin's (see lookalike.ts). */
  allow_similar_name: v.optional(v.boolean("expected true or false")),
  /** Install although the package's signature is refused (audited). */
  allow_unsigned: v.optional(v.boolean("expected true or false")),
});
export type FromUrl = v.InferOutput<typeof FromUrl>;

const SIGNATURE_FIELDS = {
  /** Install although the plugin is unsigned or wrongly signed: the acknowledgement is audited. */
  allow_unsigned: v.optional(v.boolean("expected true or false")),
  /** For an oci:// source: the secret holding the registry's `username:password`. */
  registry_secret: v.optional(v.pipe(v.string(), v.regex(/^[a-z][a-z0-9_-]{0,63}$/, "expected a secret's name"))),
  /** For an oci:// source not on loopback: plain http instead of https. */
  plain_http: v.optional(v.boolean("expected true or false")),
};

/**
 * A plugin in an OCI registry, `oci://REGISTRY/NAME:TAG` or `@sha256:…`, which the server pulls
 * (docs/distribution.md). Any served app accepts it: it names a registry, never a path.
 */
export const FromRegistry = v.strictObject({
  source: v.pipe(v.string("expected an oci:// reference"), v.maxLength(1024, "expected at most 1024 characters"), v.regex(/^oci:\/\//i, "expected oci://REGISTRY/NAME:TAG or oci://REGISTRY/NAME@sha256:HEX (a path is read only by a client in the server's own process)")),
  allow_similar_name: v.optional(v.boolean("expected true or false")),
  ...SIGNATURE_FIELDS,
});
export type FromRegistry = v.InferOutput<typeof FromRegistry>;

/**
 * A source the runtime itself reads — a folder, a .tgz, a .wasm with its manifest, an https
 * URL — named by a client in this process only (`localSources`): the app a server serves never
 * accepts it, so no HTTP caller can make the server read a path of its own choosing.
 */
export const FromSource = v.strictObject({
  source: v.pipe(v.string("expected a path or an https URL"), v.minLength(1, "expected a path or an https URL")),
  sha256: v.optional(SHA256),
  /** A bare .wasm's plugin.json. */
  manifest: v.optional(v.pipe(v.string(), v.minLength(1, "expected a file"))),
  allow_similar_name: v.optional(v.boolean("expected true or false")),
  ...SIGNATURE_FIELDS,
});
export type FromSource = v.InferOutput<typeof FromSource>;

export interface ReadFor {
  by: string;
  /** The token id an upload's origin names (`upload by tok_…`). */
  uploader: string;
  action: "install" | "upgrade";
  name?: string;
}

export async function readUrl(runtime: Runtime, body: FromUrl, options: ReadFor & { querySha: string | undefined; download: DownloadOptions | undefined }): Promise<PluginPackage> {
  const { querySha, download, action, uploader: _uploader, ...audit } = options;
  if (querySha !== undefined) throw new InvalidInputError("query.sha256: give the sha256 in the body with the url", { field: "query.sha256" });
  try {
    return await runtime.installer.readPackageFor(action, body.url, { sha256: body.sha256, ...audit, ...(download === undefined ? {} : { download }) });
  } catch (error) {
    throw atField(error, { source: "body.url", sha256: "body.sha256", manifest: "body.url" });
  }
}

/** A source this process names (`FromSource`), read by the installer as the command line reads it. */
export async function readSource(runtime: Runtime, body: FromSource | FromRegistry, options: ReadFor): Promise<PluginPackage> {
  const { action, uploader: _uploader, ...audit } = options;
  try {
    return await runtime.installer.readPackageFor(action, body.source, {
      ...audit,
      ...("sha256" in body && body.sha256 !== undefined ? { sha256: body.sha256 } : {}),
      ...("manifest" in body && body.manifest !== undefined ? { manifestFile: body.manifest } : {}),
      ...(body.registry_secret === undefined ? {} : { registrySecret: body.registry_secret }),
      ...(body.plain_http === true ? { registry: { plainHttp: true } } : {}),
    });
  } catch (error) {
    throw atField(error, { source: "body.source", sha256: "body.sha256", manifest: "body.manifest", registry_secret: "body.registry_secret" });
  }
}

/**
 * An uploaded .tgz: written to a file only this process can read (a fresh 0700 folder, the file
 * 0600, created exclusively) and read back by the installer as any local package is. The temp
 * path is an implementation detail, so it is taken out of any error before it is answered.
 */
export async function readUpload(runtime: Runtime, raw: RawBody, options: ReadFor & { sha256: string | undefined; tempDir: string | undefined }): Promise<PluginPackage> {
  if (raw.bytes.length < 2 || raw.bytes[0] !== 0x1f || raw.bytes[1] !== 0x8b) {
    throw new InvalidInputError("body: expected a gzip-compressed .tgz package (plugin.json and plugin.wasm)", { field: "body" });
  }
  const dir = await mkdtemp(join(options.tempDir ?? tmpdir(), "clawhive-upload-"));
  const file = join(dir, "package.tgz");
  try {
    await writeFile(file, raw.bytes, { mode: 0o600, flag: "wx" });
    const origin = `upload by ${options.uploader}`;
    const audit = { by: options.by, origin, ...(options.name === undefined ? {} : { name: options.name }) };
    const pkg = await runtime.installer.readPackageFor(options.action, file, { ...audit, ...(options.sha256 === undefined ? {} : { sha256: options.sha256 }) });
    return { ...pkg, origin };
  } catch (error) {
    throw atField(error, { source: "body", sha256: "query.sha256", manifest: "body" }, { [file]: "the upload", [dir]: "the upload" });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The installer names its own inputs (`source`, `sha256`); the caller sent `body.url` or a
 * query. The same error, its field and any temp paths in its message translated.
 */
function atField(error: unknown, fields: Record<string, string>, paths: Record<string, string> = {}): unknown {
  if (!(error instanceof ClawhiveError)) return error;
  let message = error.message;
  for (const [path, name] of Object.entries(paths).sort((a, b) => b[0].length - a[0].length)) message = message.split(path).join(name);
  if (error instanceof InvalidInputError) {
    const field = error.field === undefined ? undefined : (fields[error.field] ?? error.field);
    return new InvalidInputError(message, { ...(field === undefined ? {} : { field }), cause: error });
  }
  if (message === error.message) return error;
  return new ClawhiveError(error.code, message, { status: error.status, cause: error });
}
