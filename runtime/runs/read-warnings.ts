/**
 * What a ToolCall's mail and calendar reads could not read (or read only by guessing): counted
 * on the ToolCall while it runs, then added to its result and to the run's events, so neither
 * the model nor the person is left with a silently partial answer.
 */
/** Warnings of one ToolCall: all counted, the first `MAX_READ_WARNINGS` kept as text. */
export interface ReadWarnings {
  count: number;
  lines: string[];
}

export const MAX_READ_WARNINGS = 50;
const MAX_LINE = 300;

/** Counts `line` on the active ToolCall (a host call outside one has no result to carry it). */
export function noteReadWarning(active: { readWarnings?: ReadWarnings | undefined } | undefined, line: string): void {
  if (active === undefined) return;
  const warnings = (active.readWarnings ??= { count: 0, lines: [] });
  warnings.count++;
  if (warnings.lines.length < MAX_READ_WARNINGS) warnings.lines.push(line.slice(0, MAX_LINE));
}

/**
 * A result with what its reads could not read: under `warnings` of an object result (appended
 * to a list already there; `read_warnings` when `warnings` is something else), else beside the
 * result. The model sees them with the data they concern.
 */
export function withReadWarnings(output: unknown, warnings: ReadWarnings): unknown {
  const lines = warnings.count > warnings.lines.length ? [...warnings.lines, `… and ${warnings.count - warnings.lines.length} more`] : [...warnings.lines];
  if (typeof output === "object" && output !== null && !Array.isArray(output)) {
    const existing = (output as Record<string, unknown>).warnings;
    if (existing === undefined || Array.isArray(existing)) return { ...output, warnings: [...(existing ?? []), ...lines] };
    return { ...output, read_warnings: lines };
  }
  return { result: output, warnings: lines };
}
