import { defineTool, fail } from "../../sdk/index.js";
import { readText, resolvePath } from "../../sdk/fs.js";

const DEFAULT_LIMIT = 2000;
/** A result larger than this is cut at a line boundary (the host also caps results). */
const MAX_CHARS = 256 * 1024;

/** The lines of `text`, each with its line terminator; a final terminator opens no new line. */
function splitLines(text: string): string[] {
  const lines = text.split(/(?<=\n)/);
  return lines.length === 1 && lines[0] === "" ? [] : lines;
}

export const readFile = defineTool({
  description:
    "Read a text file. Returns its text from line `offset` (1-based, default 1), at most `limit` lines " +
    `(default ${DEFAULT_LIMIT}), with the file's total line count; \`next_offset\` is set when there is more. ` +
    "Binary files are refused. A relative path resolves against the first mount.",
  inputSchema: {
    type: "object",
    properties: {
      path: { type: "string", description: "Path of the file, e.g. /work/src/main.ts" },
      offset: { type: "integer", minimum: 1, description: "First line to return (1-based)" },
      limit: { type: "integer", minimum: 1, description: "Most lines to return" },
    },
    required: ["path"],
    additionalProperties: false,
  },
  capabilities: ["fs.read"],
  risk: "safe",
  run({ path, offset = 1, limit = DEFAULT_LIMIT }) {
    if (offset < 1) throw fail.invalidInput(`input field "offset": must be at least 1, got ${offset}`);
    if (limit < 1) throw fail.invalidInput(`input field "limit": must be at least 1, got ${limit}`);
    const file = resolvePath(path);
    const lines = splitLines(readText(file));
    if (offset > 1 && offset > lines.length) {
      throw fail.invalidInput(`input field "offset": ${offset} is past the end of ${file} (${lines.length} lines)`);
    }
    let content = "";
    let end = offset - 1;
    const last = Math.min(lines.length, offset - 1 + limit);
    while (end < last) {
      const line = lines[end] ?? "";
      if (content.length + line.length > MAX_CHARS) {
        // Always return something: a first line longer than the cap is cut.
        if (end === offset - 1) {
          content = line.slice(0, MAX_CHARS);
          end += 1;
        }
        break;
      }
      content += line;
      end += 1;
    }
    const truncated = end < lines.length;
    return {
      path: file,
      content,
      start_line: lines.length === 0 ? 0 : offset,
      end_line: end,
      total_lines: lines.length,
      truncated,
      ...(truncated ? { next_offset: end + 1 } : {}),
    };
  },
});
