/** The memory room: episodes per agent, chunked and searchable by keyword and by vector, and MEMORY.md. */
export { MemoryStore } from "./memory-store.js";
export type { MemoryStoreOptions } from "./memory-store.js";
export { memoryMigrations, vectorMigrations } from "./migrations.js";
export { chunkMarkdown } from "./chunk.js";
export type { Chunk, ChunkOptions } from "./chunk.js";
export { OpenAiEmbedder } from "./embedder.js";
export type { Embedder, OpenAiEmbedderOptions } from "./embedder.js";
export { MemoryError } from "./errors.js";
export type { MemoryErrorCode } from "./errors.js";
export { MEMORY_FILE_MAX_BYTES, memoryFilePath, readMemoryFile, writeMemoryFile } from "./memory-file.js";
export { memoryZone } from "./zone.js";
export type { EpisodeInput, EpisodeSource, MemoryHit, SearchMode, SearchOptions, WriteOptions, WrittenEpisode } from "./types.js";
export { forgetAsPerson, MAX_PERSON_EPISODE_BYTES, MAX_PERSON_K, personScope, searchAsPerson, writeAsPerson } from "./people.js";
