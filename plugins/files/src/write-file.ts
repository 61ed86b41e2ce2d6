import { defineTool } from "../../sdk/index.js";
import { resolvePath, writeText } from "../../sdk/fs.js";

export const writeFile = defineTool({
  description:
    "Write a text file: create it, or replace all of its content. Missing parent directories are created. " +
    "To change part of a file, use edit_file instead. A relative path resolves against the first mount.",
  inputSchema: {
    type: "object",
    properties: {
      path: { type: "string", description: "Path of the file, e.g. /work/notes.md" },
      content: { type: "string", description: "The file's whole new content" },
    },
    required: ["path", "content"],
    additionalProperties: false,
  },
  capabilities: ["fs.write"],
  risk: "guarded",
  run({ path, content }) {
    const file = resolvePath(path);
    const bytes = writeText(file, content, { createParents: true });
    return { path: file, bytes };
  },
});
