/** Who wrote an episode. Tool output is untrusted: it may carry instructions a model must not follow. */
export type EpisodeSource = "person" | "model" | "tool";

export interface EpisodeInput {
  text: string;
  source: EpisodeSource;
  /** Default: the first heading of `text`, else its first 80 characters. */
  title?: string;
}

export interface WriteOptions {
  /** Default: the agent's own partition, named as the agent. A sub-agent writes its own. */
  partition?: string;
  /** Forced true for `source: "tool"`; a person or the model may mark more. */
  untrusted?: boolean;
  /** Default: a random UUID. */
  id?: string;
}

export interface WrittenEpisode {
  id: string;
  chunks: number;
}

export type SearchMode = "keyword" | "vector" | "hybrid";

export interface SearchOptions {
  /** Default 5, at most 100. */
  k?: number;
  /** Which of the agent's partitions the search may read. Default: `[agent]`. */
  partitions?: readonly string[];
  /** Default `keyword`. */
  mode?: SearchMode;
}

export interface MemoryHit {
  episodeId: string;
  chunkId: number;
  seq: number;
  partition: string;
  source: EpisodeSource;
  untrusted: boolean;
  title: string;
  headingPath: string[];
  text: string;
  /** Higher is better: −bm25 (keyword), 1 − cosine distance (vector), the RRF sum (hybrid). */
  score: number;
  createdAt: number;
}
