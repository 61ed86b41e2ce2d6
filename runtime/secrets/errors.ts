import { ClawhiveError } from "../errors.js";

/**
 * Why a secret could not be read or written.
 * - `secret_not_found` (404): no secret has this name.
 * - `secret_key_invalid` (500): the configured key is not 32 bytes, its file is missing or
 *   unreadable — a configuration problem the operator fixes.
 * - `secret_key_missing` (500): the store already holds secrets under a key this node does not
 *   have (a second node started without the shared key).
 * - `secret_key_mismatch` (500): this node's key is not the one the store was set up with.
 * - `secret_undecryptable` (500): a stored secret does not authenticate under the key: it was
 *   altered, moved to another name, or written with another key.
 * Messages name key *ids*, never key bytes or secret values.
 */
export type SecretErrorCode =
  | "secret_not_found"
  | "secret_key_invalid"
  | "secret_key_missing"
  | "secret_key_mismatch"
  | "secret_undecryptable";

export class SecretError extends ClawhiveError {
  declare readonly code: SecretErrorCode;

  constructor(code: SecretErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(code, message, { status: code === "secret_not_found" ? 404 : 500, cause: options.cause });
  }
}
