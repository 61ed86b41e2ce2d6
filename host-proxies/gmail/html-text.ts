/** The text body a guest reads: text/plain as sent, or text/html turned into plain text. */
import { convert } from "html-to-text";

/** Matches mailparser's own HTML nesting limit: deeper markup is cut, not recursed into. */
const MAX_HTML_DEPTH = 300;

/**
 * text/plain when it holds anything but whitespace, else the HTML converted (both, when the
 * HTML is a separate part); line ends are
 * `\n` and trailing whitespace is dropped, so backends that join parts differently agree.
 */
export function bodyText(plain: string | undefined, html: string | undefined, htmlSeparate = false): string {
  const hasHtml = html !== undefined && html.trim() !== "";
  // A separate HTML part (multipart/mixed) is content of its own, not another version of the text.
  if (plain !== undefined && plain.trim() !== "" && htmlSeparate && hasHtml) return normalize(`${plain.trimEnd()}\n\n${htmlToPlain(html).trim()}`);
  if (plain !== undefined && plain.trim() !== "") return normalize(plain);
  if (html !== undefined && html.trim() !== "") return normalize(htmlToPlain(html));
  return "";
}

/** No word wrap (the reader is a model, not a terminal); images and link targets that repeat the text are dropped. */
export function htmlToPlain(html: string): string {
  return convert(html, {
    wordwrap: false,
    limits: { maxDepth: MAX_HTML_DEPTH },
    selectors: [
      { selector: "a", options: { hideLinkHrefIfSameAsText: true } },
      { selector: "img", format: "skip" },
    ],
  });
}

function normalize(text: string): string {
  return text.replace(/\r\n?/g, "\n").trimEnd();
}
