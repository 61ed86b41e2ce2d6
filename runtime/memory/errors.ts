import { ClawhiveError } from "../errors.js";

/**
 * `memory_no_embedder` (a vector or hybrid search on a store without an embedder),
 * `memory_embedding_failed` (the embeddings endpoint failed or answered wrongly),
 * `memory_file_too_large` (MEMORY.md over its cap).
 */
export type MemoryErrorCode = "memory_no_embedder" | "memory_embedding_failed" | "memory_file_too_large";

export class MemoryError extends ClawhiveError {
  declare readonly code: MemoryErrorCode;
  constructor(code: MemoryErrorCode, message: string, options: { status?: number; cause?: unknown } = {}) {
    super(code, message, { status: options.status ?? (code === "memory_embedding_failed" ? 502 : 400), cause: options.cause });
  }
}
