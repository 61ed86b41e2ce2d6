/**
 * Where the secret key comes from. In order: the `CLAWHIVE_SECRET_KEY` value (base64 of 32 bytes),
 * else a key file the operator names, else `<data dir>/secret.key`, which the runtime creates on
 * a fresh store. The key never enters the store: the store keeps only its id (see `reference.ts`).
 */
import { createHash, createSecretKey, randomBytes } from "node:crypto";
import type { KeyObject } from "node:crypto";
import { link, mkdir, open, readFile, unlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import { SecretError } from "./errors.js";

export const KEY_BYTES = 32;
export const DEFAULT_KEY_FILE = "secret.key";

/** Standard base64 of exactly 32 bytes: 43 characters and one `=`. */
const BASE64_KEY = /^[A-Za-z0-9+/]{43}=$/;

export interface SecretKeyConfig {
  /** Where `secret.key` lives when no other key is given. */
  readonly dataDir: string;
  /** The value of `CLAWHIVE_SECRET_KEY`: base64 of 32 bytes. Wins over every file; empty counts as unset. */
  readonly keyFromEnv?: string | undefined;
  /** A key file: 32 raw bytes, or their base64 as text. Must exist: a typo should not mint a key. */
  readonly keyFile?: string | undefined;
}

/** A loaded key. `key` is a `KeyObject`, so logging or serialising it never prints the bytes. */
export interface SecretKey {
  readonly key: KeyObject;
  /** The fingerprint the store records and errors name (see `keyIdOf`). */
  readonly id: string;
  /** For messages: `CLAWHIVE_SECRET_KEY` or `key file <path>`. */
  readonly source: string;
  /** True when this call created the default key file. */
  readonly created: boolean;
}

/**
 * The key's id: the first 16 hex digits (64 bits) of SHA-256 over a label and the key. Enough to
 * tell keys apart; reveals nothing about a 256-bit random key. The label keeps the id from ever
 * equalling a plain SHA-256 of the key that some other tool might print.
 */
export function keyIdOf(key: Uint8Array): string {
  return createHash("sha256").update("clawhive secret key id v1\0").update(key).digest("hex").slice(0, 16);
}

/**
 * Loads the configured key. When none is configured and `<data dir>/secret.key` does not exist,
 * creates it only if `mayCreate` (the store has no key yet): a second node must be given the
 * store's key, not mint its own.
 */
export async function loadSecretKey(config: SecretKeyConfig, options: { mayCreate: boolean; expectedId?: string }): Promise<SecretKey> {
  if (config.keyFromEnv !== undefined && config.keyFromEnv !== "") {
    return toSecretKey(decodeBase64Key(config.keyFromEnv, "CLAWHIVE_SECRET_KEY"), { source: "CLAWHIVE_SECRET_KEY", created: false });
  }
  if (config.keyFile !== undefined && config.keyFile !== "") {
    return toSecretKey(await readKeyFile(config.keyFile), { source: `key file ${config.keyFile}`, created: false });
  }
  const path = join(config.dataDir, DEFAULT_KEY_FILE);
  const existing = await readKeyFileIfPresent(path);
  if (existing !== undefined) return toSecretKey(existing, { source: `key file ${path}`, created: false });
  if (!options.mayCreate) {
    throw new SecretError(
      "secret_key_missing",
      `secret key: the store's secrets are sealed with key id ${options.expectedId ?? "?"} and this node has no key; ` +
        `copy that key to ${path}, or set CLAWHIVE_SECRET_KEY or a key file, the same on every node`,
    );
  }
  const made = await createKeyFile(path);
  return toSecretKey(made.key, { source: `key file ${path}`, created: made.created });
}

function toSecretKey(bytes: Buffer, info: { source: string; created: boolean }): SecretKey {
  const id = keyIdOf(bytes);
  const key = createSecretKey(bytes); // copies the bytes into the KeyObject
  bytes.fill(0);
  return { key, id, ...info };
}

function decodeBase64Key(text: string, where: string): Buffer {
  const trimmed = text.trim();
  // Buffer.from(…, "base64") skips characters it does not know and accepts short input, so a
  // truncated or mistyped key would silently become another key: check the shape first.
  if (!BASE64_KEY.test(trimmed)) {
    throw new SecretError(
      "secret_key_invalid",
      `${where}: expected the base64 of ${KEY_BYTES} random bytes (44 characters, e.g. from \`openssl rand -base64 32\`), got ${trimmed.length} characters`,
    );
  }
  return Buffer.from(trimmed, "base64");
}

/** 32 bytes are the raw key; anything else must be its base64 text. */
async function readKeyFile(path: string): Promise<Buffer> {
  const bytes = await readKeyFileIfPresent(path);
  if (bytes === undefined) {
    throw new SecretError("secret_key_invalid", `key file ${path}: does not exist; point at the key the store was set up with`);
  }
  return bytes;
}

async function readKeyFileIfPresent(path: string): Promise<Buffer | undefined> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    if (errnoOf(error) === "ENOENT") return undefined;
    throw new SecretError("secret_key_invalid", `key file ${path}: cannot read it: ${errnoOf(error) ?? String(error)}`, { cause: error });
  }
  if (bytes.length === KEY_BYTES) return bytes;
  try {
    return decodeBase64Key(bytes.toString("latin1"), `key file ${path}`);
  } finally {
    bytes.fill(0);
  }
}

/**
 * Creates the key file so that it appears complete or not at all, and so that two processes
 * racing to create it end with one key. The bytes go to a private temporary file (O_CREAT|O_EXCL,
 * mode 0600), are fsynced, and the file is then hard-linked to its name: `link(2)` fails with
 * EEXIST when the name exists, exactly like O_EXCL, but unlike writing after an O_EXCL open, a
 * loser never reads a half-written key. The loser reads and uses the winner's key.
 */
async function createKeyFile(path: string): Promise<{ key: Buffer; created: boolean }> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const key = randomBytes(KEY_BYTES);
  const temp = `${path}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    const handle = await open(temp, "wx", 0o600);
    try {
      await handle.writeFile(key);
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await link(temp, path);
      await syncDir(dir);
      return { key, created: true };
    } catch (error) {
      if (errnoOf(error) !== "EEXIST") throw error;
      key.fill(0);
      return { key: await readKeyFile(path), created: false };
    }
  } catch (error) {
    if (error instanceof SecretError) throw error;
    throw new SecretError(
      "secret_key_invalid",
      `key file ${path}: cannot create it: ${errnoOf(error) ?? String(error)}; set CLAWHIVE_SECRET_KEY or a key file instead`,
      { cause: error },
    );
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

/** Makes the new directory entry durable; some platforms cannot open a directory, which is fine. */
async function syncDir(dir: string): Promise<void> {
  try {
    const handle = await open(dir, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // best effort
  }
}

function errnoOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}
