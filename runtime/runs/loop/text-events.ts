/**
 * The model's streamed text as run events. A provider hands over deltas of a few characters;
 * one stored event each would cost a row per token. They are gathered instead: complete lines go
 * out at once (a client renders Markdown at line and block boundaries), a partial line after a
 * short while, so a slow model's words still show as they come.
 */

/** How long a partial line waits for more text before it is recorded anyway. */
const PARTIAL_LINE_MS = 60;
/** A partial line this long is recorded at once (a model that writes no newlines). */
const MAX_PENDING = 2_000;

export class TextEvents {
  readonly #record: (text: string) => void;
  #pending = "";
  #timer: NodeJS.Timeout | undefined;

  /** `record` stores one text event (Run.recordText bound to the Step). */
  constructor(record: (text: string) => void) {
    this.#record = record;
  }

  /** A provider's text delta (CompleteOptions.onText). */
  readonly add = (delta: string): void => {
    this.#pending += delta;
    const lineEnd = this.#pending.lastIndexOf("\n");
    if (this.#pending.length >= MAX_PENDING) this.flush();
    else if (lineEnd >= 0) {
      const lines = this.#pending.slice(0, lineEnd + 1);
      this.#pending = this.#pending.slice(lineEnd + 1);
      this.#record(lines);
    }
    if (this.#pending === "") this.#clearTimer();
    else if (this.#timer === undefined) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        this.flush();
      }, PARTIAL_LINE_MS);
      this.#timer.unref();
    }
  };

  /** Records what is pending (the model call ended, answered or not). */
  flush(): void {
    this.#clearTimer();
    const text = this.#pending;
    this.#pending = "";
    if (text !== "") this.#record(text);
  }

  #clearTimer(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
