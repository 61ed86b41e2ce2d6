/**
 * The audit records of one ToolCall that are not awaited where they are appended (a read's
 * intent and outcome, an effect's outcome, the denial of a log flood): the ToolCall's result is
 * released only once every one of them is durable (`settled`), and withheld if any failed.
 * Holds a count and the first failure, never the records: a ToolCall of many host calls keeps
 * nothing per call once each is written.
 */
export class ToolCallRecords {
  #pending = 0;
  #failure: Error | undefined;
  #waiters: Array<() => void> = [];

  /** Counts `written` in until it settles; a rejection is kept as the ToolCall's failure. */
  track(written: Promise<unknown>): void {
    this.#pending++;
    written.then(
      () => this.#settle(),
      (error: unknown) => {
        this.fail(error);
        this.#settle();
      },
    );
  }

  /** A record of this ToolCall that could not be written (its host call was refused for it). */
  fail(error: unknown): void {
    this.#failure ??= error instanceof Error ? error : new Error(String(error));
  }

  /** The first record of this ToolCall that failed, so far. */
  get failure(): Error | undefined {
    return this.#failure;
  }

  /** Resolves once every tracked record has settled: with the first failure, or undefined. */
  async settled(): Promise<Error | undefined> {
    while (this.#pending > 0) await new Promise<void>((resolve) => this.#waiters.push(resolve));
    return this.#failure;
  }

  #settle(): void {
    this.#pending--;
    if (this.#pending > 0) return;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }
}
