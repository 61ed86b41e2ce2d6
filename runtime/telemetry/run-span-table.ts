/** The spans of the runs traced in this process, by run id (run-spans.ts keeps it). */
import type { Span } from "@opentelemetry/api";

export interface RunSpans {
  readonly span: Span;
  readonly steps: Map<string, Span>;
  readonly toolCalls: Map<string, Span>;
  /** The ToolCall's span open now, if one is. */
  current: Span | undefined;
}

export const runs = new Map<string, RunSpans>();
