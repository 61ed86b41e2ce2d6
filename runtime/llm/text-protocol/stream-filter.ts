/**
 * The text protocol's streamed text with the call markup taken out, so `clawhive chat` and the
 * run's text events show the model's words, never `<tool_call …>…</tool_call>`. A delta may end
 * inside a tag (`<tool_c`): what could still become markup is held back until the next delta
 * tells, and released as text when it does not (`<tool_calls`, `<b>`).
 */
import { CLOSE_TAG, OPEN_TAG, opensTag } from "./parse.js";

type Where = "text" | "open-tag" | "body";

export class CallMarkupFilter {
  #buffer = "";
  #where: Where = "text";
  #lastTagChar = "";

  /** A delta in; the text that is now known to be the model's own out (possibly ""). */
  push(delta: string): string {
    this.#buffer += delta;
    let out = "";
    for (;;) {
      if (this.#where === "text") {
        const at = this.#openAt();
        if (at === "wait" || at < 0) {
          const keep = at === "wait" ? this.#buffer.length - this.#buffer.lastIndexOf(OPEN_TAG) : heldPrefix(this.#buffer, OPEN_TAG);
          out += this.#buffer.slice(0, this.#buffer.length - keep);
          this.#buffer = this.#buffer.slice(this.#buffer.length - keep);
          return out;
        }
        out += this.#buffer.slice(0, at);
        this.#buffer = this.#buffer.slice(at + OPEN_TAG.length);
        this.#where = "open-tag";
      } else if (this.#where === "open-tag") {
        const end = this.#buffer.indexOf(">");
        const tag = end < 0 ? this.#buffer : this.#buffer.slice(0, end);
        // Only the tag's last non-space character matters (`/>`): the rest is dropped as it
        // comes, so a tag that never ends is not rescanned on every delta.
        if (tag.trim() !== "") this.#lastTagChar = tag.trimEnd().slice(-1);
        if (end < 0) {
          this.#buffer = "";
          return out;
        }
        const selfClosing = this.#lastTagChar === "/";
        this.#lastTagChar = "";
        this.#buffer = this.#buffer.slice(end + 1);
        this.#where = selfClosing ? "text" : "body";
      } else {
        const close = this.#buffer.indexOf(CLOSE_TAG);
        if (close < 0) {
          // Only a possible start of the closing tag is worth keeping.
          this.#buffer = this.#buffer.slice(Math.max(0, this.#buffer.length - (CLOSE_TAG.length - 1)));
          return out;
        }
        this.#buffer = this.#buffer.slice(close + CLOSE_TAG.length);
        this.#where = "text";
      }
    }
  }

  /** The stream ended: held-back text that never became markup is the model's. */
  end(): string {
    const rest = this.#where === "text" ? this.#buffer : "";
    this.#buffer = "";
    this.#where = "text";
    return rest;
  }

  /** Where the next element opens, -1 for none, or "wait" when `<tool_call` ends the buffer. */
  #openAt(): number | "wait" {
    for (let at = this.#buffer.indexOf(OPEN_TAG); at >= 0; at = this.#buffer.indexOf(OPEN_TAG, at + 1)) {
      if (at + OPEN_TAG.length === this.#buffer.length) return "wait";
      if (opensTag(this.#buffer, at)) return at;
    }
    return -1;
  }
}

/** The length of the longest end of `text` that `tag` starts with (a tag cut by the delta). */
function heldPrefix(text: string, tag: string): number {
  for (let n = Math.min(tag.length - 1, text.length); n > 0; n--) {
    if (tag.startsWith(text.slice(text.length - n))) return n;
  }
  return 0;
}
