/** A spinner on stderr while the model thinks, at a terminal only. */
export class Spinner {
  static readonly FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
  #timer: NodeJS.Timeout | undefined;
  #frame = 0;

  start(): void {
    if (process.stderr.isTTY !== true || this.#timer !== undefined) return;
    this.#timer = setInterval(() => {
      process.stderr.write(`\r${Spinner.FRAMES[this.#frame++ % Spinner.FRAMES.length]} thinking`);
    }, 100);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer === undefined) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
    process.stderr.write("\r\u001b[2K");
  }
}
