/**
 * The secrets room: named credentials sealed at rest (AES-256-GCM, the name bound as AAD) in the
 * store, the key's id recorded beside them so every node checks it holds the same key, and a
 * redactor that keeps the values out of text and bodies. Main thread only: no worker ever sees
 * the key or a value.
 */
export { openSecretStore, SecretStore } from "./secret-store.js";
export type { OpenSecretStoreOptions, SecretInfo } from "./secret-store.js";
export type { SecretKeyConfig } from "./key.js";
export { DEFAULT_KEY_FILE, keyIdOf } from "./key.js";
export { secretMigrations } from "./schema.js";
export { secretRedactor, MIN_REDACTED_LENGTH } from "./redact.js";
export type { SecretRedactor, SecretRedactorOptions } from "./redact.js";
export { checkSecretName, MAX_VALUE_BYTES, NAME_PATTERN } from "./validate.js";
export { SecretError } from "./errors.js";
export type { SecretErrorCode } from "./errors.js";
