/**
 * Progress lines of long operations (plugin builds, compiles) on stderr. At a terminal, the
 * time since the last line ticks on a status line beneath it, so a 20-80 s build never looks
 * like a hang; to a pipe or a file, only the lines themselves are written (no control codes).
 */

export interface ProgressStream {
  isTTY?: boolean;
  write(text: string): unknown;
}

export interface ProgressPrinter {
  (line: string): void;
  /**
   * Clears the status line and stops its timer; later lines are written plainly (a command's
   * own output follows, and a status line would tangle with it).
   */
  stop(): void;
}

/** How often the status line is redrawn. */
const TICK_MS = 1000;

export function progressPrinter(stream: ProgressStream = process.stderr, options: { now?: () => number } = {}): ProgressPrinter {
  const now = options.now ?? Date.now;
  let timer: NodeJS.Timeout | undefined;
  let since = 0;
  let status = false;
  let stopped = false;
  const clear = () => {
    if (status) stream.write("\r\u001b[2K");
    status = false;
  };
  const halt = () => {
    if (timer !== undefined) clearInterval(timer);
    timer = undefined;
    clear();
  };
  const print = ((line: string) => {
    if (stream.isTTY !== true || stopped) {
      stream.write(`${line}\n`);
      return;
    }
    halt();
    stream.write(`${line}\n`);
    since = now();
    timer = setInterval(() => {
      clear();
      stream.write(`  … ${Math.round((now() - since) / 1000)} s`);
      status = true;
    }, TICK_MS);
    timer.unref();
  }) as ProgressPrinter;
  print.stop = () => {
    stopped = true;
    halt();
  };
  return print;
}
