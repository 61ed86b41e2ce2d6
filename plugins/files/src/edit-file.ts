import { defineTool, fail } from "../../sdk/index.js";
import { readText, resolvePath, writeText } from "../../sdk/fs.js";

function countOccurrences(text: string, needle: string): number {
  let count = 0;
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) count += 1;
  return count;
}

/** Why `oldText` may be missing although the model saw it: the usual near misses. */
function nearMissHint(text: string, oldText: string): string {
  if (text.includes("\r\n") && oldText.includes("\n") && !oldText.includes("\r\n")) {
    return " The file has CRLF line endings; old_text has LF only.";
  }
  const trimmed = oldText.trim();
  if (trimmed !== "" && trimmed !== oldText && text.includes(trimmed)) {
    return " It does appear without its leading or trailing whitespace.";
  }
  return "";
}

export const editFile = defineTool({
  description:
    "Edit a text file by exact find-and-replace: replace `old_text` with `new_text`. `old_text` must appear " +
    "exactly once (include enough surrounding lines to make it unique), or set `replace_all` to replace every " +
    "occurrence. Whitespace and line endings must match exactly. A relative path resolves against the first mount.",
  inputSchema: {
    type: "object",
    properties: {
      path: { type: "string", description: "Path of the file to edit" },
      old_text: { type: "string", description: "The exact text to find" },
      new_text: { type: "string", description: "The text to put in its place" },
      replace_all: { type: "boolean", description: "Replace every occurrence (default false)" },
    },
    required: ["path", "old_text", "new_text"],
    additionalProperties: false,
  },
  capabilities: ["fs.read", "fs.write"],
  risk: "guarded",
  run({ path, old_text: oldText, new_text: newText, replace_all: replaceAll = false }) {
    if (oldText === "") throw fail.invalidInput(`input field "old_text": must not be empty`);
    if (oldText === newText) throw fail.invalidInput(`input field "new_text": is the same as old_text; nothing to change`);
    const file = resolvePath(path);
    const text = readText(file);
    const count = countOccurrences(text, oldText);
    if (count === 0) {
      throw fail.failed(
        `${file}: old_text was not found; read the file again and copy the text exactly.${nearMissHint(text, oldText)}`,
      );
    }
    if (count > 1 && !replaceAll) {
      throw fail.failed(
        `${file}: old_text appears ${count} times; add surrounding lines to make it unique, or set replace_all to replace all ${count}`,
      );
    }
    // split/join, not String.replace: a replacement string would expand `$&`, `$1`, `$$`.
    const edited = text.split(oldText).join(newText);
    const bytes = writeText(file, edited);
    return { path: file, replacements: count, bytes };
  },
});
