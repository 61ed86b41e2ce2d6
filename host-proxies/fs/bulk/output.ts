/**
 * What a walk or search has returned so far, in characters of paths and lines (`max-output-chars`).
 * One count for both ops, so a guest that lowers the cap to fit its own answer gets at most that.
 */
export class OutputBudget {
  #left: number;

  constructor(maxChars: number) {
    this.#left = maxChars;
  }

  /** Takes an entry's path; false (nothing taken) when it would pass the cap. */
  takePath(path: string): boolean {
    return this.#take(path.length);
  }

  /** Takes a match with its path and context lines; false (nothing taken) when it would pass the cap. */
  takeMatch(path: string, hit: { text: string; before: readonly string[]; after: readonly string[] }): boolean {
    return this.#take(path.length + hit.text.length + chars(hit.before) + chars(hit.after));
  }

  #take(n: number): boolean {
    if (n > this.#left) return false;
    this.#left -= n;
    return true;
  }
}

function chars(lines: readonly string[]): number {
  let n = 0;
  for (const line of lines) n += line.length;
  return n;
}
