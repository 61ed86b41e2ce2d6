/**
 * Work a command leaves for its end, whatever way it ends (an answer, an error, an exit code):
 * main.ts runs it once the command's own work is done, before the process exits. Tracing's
 * flush is one: the spans of a `clawhive call` are sent before the process goes.
 */
const hooks: Array<() => Promise<void>> = [];

export function onCommandEnd(hook: () => Promise<void>): void {
  hooks.push(hook);
}

/** Runs what was left, in order; a failing hook does not keep the others from running. */
export async function runCommandEnd(): Promise<void> {
  for (const hook of hooks.splice(0)) await hook().catch(() => undefined);
}
