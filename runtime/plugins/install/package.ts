import { readFile, stat } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { InvalidInputError, PluginError } from "../../errors.js";
import { sha256 } from "../artifact.js";
import { buildComponent } from "../build.js";
import { PACKAGE_WASM, parsePluginManifest, type PluginManifest } from "../manifest.js";
import { isOciSource, parseOciReference, pullPlugin, type RegistryOptions } from "../oci/index.js";
import { MAX_SIGNATURE_BYTES, SIGNATURE_FILE } from "../signing/index.js";
import { download, type DownloadOptions } from "./download.js";
import { unpackTarball } from "./tarball.js";

const MANIFEST = "plugin.json";
/** Largest plugin.wasm accepted (componentize-js output is ~12 MiB). */
export const MAX_WASM_BYTES = 64 << 20;
const MAX_MANIFEST_BYTES = 64 << 10;
/** Decompressed bytes a .tgz may hold in all: the two files, headers and a few small extras. */
export const MAX_UNPACKED_BYTES = MAX_WASM_BYTES + (4 << 20);
/** Inflating 68 MiB takes well under a second; a package that needs longer is refused. */
export const UNPACK_TIMEOUT_MS = 30_000;

/** Caps on unpacking a .tgz (tests lower them). */
export interface UnpackLimits {
  maxUnpackedBytes?: number;
  timeoutMs?: number;
}

/** What an install starts from: a manifest and the wasm it describes, checked against each other. */
export interface PluginPackage {
  manifest: PluginManifest;
  manifestText: string;
  bytes: Uint8Array;
  sha256: string;
  /** Where it came from, for people (a path or URL; for a registry, the reference pinned to its digest). */
  origin: string;
  /** The publisher's signature file (`plugin.sig`), when the package carries one. */
  signature?: Uint8Array;
  /** From a registry: the plugin must be signed (a local package only when its publisher has trusted keys). */
  signatureRequired?: boolean;
}

export interface ReadPackageOptions {
  /** Required for a URL; for a local source, checked when given. */
  sha256?: string;
  /** The manifest of a bare `.wasm` (default: `plugin.json` beside it). */
  manifestFile?: string;
  /** Build cache, for a plugin source folder. */
  cacheDir: string;
  onProgress?: (line: string) => void;
  /** For URLs: extra trusted CA certificates (PEM) and a size cap. */
  download?: DownloadOptions;
  unpack?: UnpackLimits;
  /** For oci:// sources: credentials, plain http, timeouts; `maxComponentBytes` lowers the cap on plugin.wasm (tests). */
  registry?: RegistryOptions & { maxComponentBytes?: number };
}

/**
 * Reads an install source into a package: a folder with `plugin.json` and `plugin.wasm`; a
 * plugin source folder (built first); a `.tgz` holding those two files; a `.wasm` with its
 * manifest; an https URL of a `.tgz` or `.wasm` whose sha256 is given; or an OCI artifact,
 * `oci://REGISTRY/NAME:TAG` or `@sha256:…` (docs/distribution.md). A folder or .tgz may hold the
 * publisher's `plugin.sig` too; an artifact carries it as a layer.
 */
export async function readPackage(source: string, options: ReadPackageOptions): Promise<PluginPackage> {
  if (typeof source !== "string" || source.length === 0) throw new InvalidInputError("source: expected a path or an https URL", { field: "source" });
  if (isOciSource(source)) return fromRegistry(source, options);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(source)) return fromUrl(source, options);
  const path = resolve(source);
  let info;
  try {
    info = await stat(path);
  } catch {
    throw new InvalidInputError(`source ${source}: no such file or folder`, { field: "source" });
  }
  if (info.isDirectory()) return fromFolder(path, options);
  const bytes = await readCapped(path, MAX_WASM_BYTES);
  checkGivenHash(bytes, options.sha256, source);
  if (isGzip(bytes)) return fromTarball(bytes, source, options.unpack);
  if (isWasm(bytes)) return fromWasm(bytes, { origin: path, manifestFile: options.manifestFile ?? join(dirname(path), MANIFEST) });
  throw new InvalidInputError(`source ${source}: expected a plugin folder, a .tgz or a .wasm`, { field: "source" });
}

async function fromUrl(url: string, options: ReadPackageOptions): Promise<PluginPackage> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InvalidInputError(`source ${url}: not a valid URL`, { field: "source" });
  }
  if (parsed.protocol !== "https:") throw new InvalidInputError(`source ${url}: only https URLs are installed`, { field: "source" });
  if (!options.sha256) throw new InvalidInputError(`source ${url}: a URL is installed only with its sha256 (--sha256)`, { field: "sha256" });
  const expected = normaliseHash(options.sha256);
  options.onProgress?.(`downloading ${parsed.href}`);
  const bytes = await download(parsed, { maxBytes: MAX_WASM_BYTES, ...options.download });
  checkGivenHash(bytes, expected, url);
  if (isGzip(bytes)) return fromTarball(bytes, parsed.href, options.unpack);
  if (isWasm(bytes)) {
    if (!options.manifestFile) throw new InvalidInputError(`source ${url}: a bare .wasm needs its manifest (--manifest plugin.json)`, { field: "manifest" });
    return fromWasm(bytes, { origin: parsed.href, manifestFile: options.manifestFile });
  }
  throw new InvalidInputError(`source ${url}: the download is neither a .tgz nor a .wasm`, { field: "source" });
}

/** A plugin artifact pulled from a registry, pinned to the digest its reference resolved to. */
async function fromRegistry(source: string, options: ReadPackageOptions): Promise<PluginPackage> {
  const ref = parseOciReference(source);
  if (options.sha256 !== undefined) throw new InvalidInputError(`source ${source}: an oci:// source is pinned by its digest (oci://REGISTRY/NAME@sha256:…), not --sha256`, { field: "sha256" });
  const { maxComponentBytes, ...registry } = options.registry ?? {};
  const pulled = await pullPlugin(ref, { ...registry, maxComponentBytes: maxComponentBytes ?? MAX_WASM_BYTES, maxManifestBytes: MAX_MANIFEST_BYTES, ...(options.onProgress ? { onProgress: options.onProgress } : {}) });
  const pkg = checked({ manifestText: pulled.manifestText, manifestFile: `${pulled.pinned}: plugin.json`, bytes: pulled.component, origin: pulled.pinned });
  return { ...pkg, signatureRequired: true, ...(pulled.signature === undefined ? {} : { signature: pulled.signature }) };
}

async function fromFolder(dir: string, options: ReadPackageOptions): Promise<PluginPackage> {
  const manifestFile = join(dir, MANIFEST);
  const manifestText = await readText(manifestFile);
  const wasmFile = join(dir, PACKAGE_WASM);
  const hasWasm = await stat(wasmFile).then((s) => s.isFile(), () => false);
  if (hasWasm) {
    const bytes = await readCapped(wasmFile, MAX_WASM_BYTES);
    checkGivenHash(bytes, options.sha256, dir);
    const signature = await readOptional(join(dir, SIGNATURE_FILE), MAX_SIGNATURE_BYTES);
    return { ...checked({ manifestText, manifestFile, bytes, origin: dir }), ...(signature === undefined ? {} : { signature }) };
  }
  // A source folder: built into a component here, then installed like any package.
  const built = await buildComponent(dir, { cacheDir: options.cacheDir, ...(options.onProgress ? { onProgress: options.onProgress } : {}) });
  checkGivenHash(built.bytes, options.sha256, dir);
  return { manifest: built.manifest, manifestText: built.manifestText, bytes: built.bytes, sha256: built.sha256, origin: dir };
}

async function fromWasm(bytes: Uint8Array, input: { origin: string; manifestFile: string }): Promise<PluginPackage> {
  const manifestText = await readText(input.manifestFile);
  return checked({ manifestText, manifestFile: input.manifestFile, bytes, origin: input.origin });
}

/**
 * The two files of a package from a gzipped tarball, at its root or under one top folder (npm
 * pack's `package/`), read into memory: nothing is extracted, so entries such as `../x` or links
 * cannot write anywhere; they are refused all the same. Inflating is capped in bytes and time
 * and runs off the main thread (tarball.ts).
 */
async function fromTarball(bytes: Uint8Array, origin: string, limits: UnpackLimits = {}): Promise<PluginPackage> {
  const { files, problems } = await unpackTarball(bytes, {
    wanted: new Map([
      [MANIFEST, MAX_MANIFEST_BYTES],
      [PACKAGE_WASM, MAX_WASM_BYTES],
      [SIGNATURE_FILE, MAX_SIGNATURE_BYTES],
    ]),
    maxUnpackedBytes: limits.maxUnpackedBytes ?? MAX_UNPACKED_BYTES,
    timeoutMs: limits.timeoutMs ?? UNPACK_TIMEOUT_MS,
    origin,
  });
  if (problems.length > 0) throw new PluginError("package_invalid", `source ${origin}: refused:\n  ${problems.join("\n  ")}`);
  const manifest = files.get(MANIFEST);
  const wasm = files.get(PACKAGE_WASM);
  if (!manifest || !wasm) throw new PluginError("package_invalid", `source ${origin}: a package holds ${MANIFEST} and ${PACKAGE_WASM}; missing ${!manifest ? MANIFEST : PACKAGE_WASM}`);
  const signature = files.get(SIGNATURE_FILE);
  const pkg = checked({ manifestText: Buffer.from(manifest).toString("utf8"), manifestFile: `${basename(origin)}:${MANIFEST}`, bytes: wasm, origin });
  return { ...pkg, ...(signature === undefined ? {} : { signature }) };
}

/** The manifest parsed and matched to the wasm: declared sha256, and the right kind of module. */
export function checked(input: { manifestText: string; manifestFile: string; bytes: Uint8Array; origin: string }): PluginPackage {
  const manifest = parsePluginManifest(input.manifestText, input.manifestFile);
  const hash = sha256(input.bytes);
  if (manifest.sha256 && manifest.sha256 !== hash) {
    throw new PluginError("blob_tampered", `${input.manifestFile}: sha256: ${PACKAGE_WASM} is not the file the manifest declares (expected ${manifest.sha256}, got ${hash})`);
  }
  const layer = wasmLayer(input.bytes);
  if (layer === undefined) throw new PluginError("package_invalid", `${input.origin}: ${PACKAGE_WASM} is not WebAssembly`);
  if (manifest.format === "component" && layer !== "component") throw new PluginError("package_invalid", `${input.manifestFile}: format: component, but ${PACKAGE_WASM} is a core module (an Extism plugin says format: extism)`);
  if (manifest.format === "extism" && layer !== "module") throw new PluginError("package_invalid", `${input.manifestFile}: format: extism, but ${PACKAGE_WASM} is a component`);
  return { manifest, manifestText: input.manifestText, bytes: input.bytes, sha256: hash, origin: input.origin };
}

function checkGivenHash(bytes: Uint8Array, given: string | undefined, source: string): void {
  if (given === undefined) return;
  const expected = normaliseHash(given);
  const actual = sha256(bytes);
  if (actual !== expected) throw new PluginError("blob_tampered", `source ${source}: sha256 mismatch (expected ${expected}, got ${actual}); nothing was installed`);
}

function normaliseHash(text: string): string {
  const hash = text.trim().toLowerCase().replace(/^sha256[:-]/, "");
  if (!/^[0-9a-f]{64}$/.test(hash)) throw new InvalidInputError("sha256: expected 64 hex digits", { field: "sha256" });
  return hash;
}

function isGzip(bytes: Uint8Array): boolean {
  return bytes[0] === 0x1f && bytes[1] === 0x8b;
}

function isWasm(bytes: Uint8Array): boolean {
  return bytes[0] === 0 && bytes[1] === 0x61 && bytes[2] === 0x73 && bytes[3] === 0x6d;
}

/** Core module (version 1, layer 0) or component (layer 1), from the preamble. */
function wasmLayer(bytes: Uint8Array): "module" | "component" | undefined {
  if (!isWasm(bytes) || bytes.length < 8) return undefined;
  if (bytes[6] === 0 && bytes[7] === 0 && bytes[4] === 1 && bytes[5] === 0) return "module";
  if (bytes[6] === 1 && bytes[7] === 0) return "component";
  return undefined;
}

async function readText(file: string): Promise<string> {
  return Buffer.from(await readCapped(file, MAX_MANIFEST_BYTES)).toString("utf8");
}

/** A small file that may be absent (a package's plugin.sig). */
async function readOptional(file: string, max: number): Promise<Uint8Array | undefined> {
  const exists = await stat(file).then((s) => s.isFile(), () => false);
  return exists ? readCapped(file, max) : undefined;
}

async function readCapped(file: string, max: number): Promise<Uint8Array> {
  let info;
  try {
    info = await stat(file);
  } catch {
    throw new InvalidInputError(`${file}: no such file`, { field: "source" });
  }
  if (!info.isFile()) throw new InvalidInputError(`${file}: not a regular file`, { field: "source" });
  if (info.size > max) throw new InvalidInputError(`${file}: ${info.size} bytes, more than the ${max} a plugin file may have`, { field: "source" });
  return new Uint8Array(await readFile(file));
}
