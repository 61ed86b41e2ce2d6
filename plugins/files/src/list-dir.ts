import { listDir as hostListDir } from "clawhive:host/fs@0.1.1";
import { defineTool } from "../../sdk/index.js";
import { resolvePath } from "../../sdk/fs.js";

const MAX_ENTRIES = 1000;

export const listDir = defineTool({
  description:
    "List a directory: each entry's name, kind (file, directory, symlink, other) and size in bytes, in name " +
    `order (at most ${MAX_ENTRIES}). A relative path resolves against the first mount; "." is the first mount.`,
  inputSchema: {
    type: "object",
    properties: {
      path: { type: "string", description: "Path of the directory, e.g. /work or ." },
    },
    required: ["path"],
    additionalProperties: false,
  },
  capabilities: ["fs.read"],
  risk: "safe",
  run({ path }) {
    const dir = resolvePath(path);
    const entries = hostListDir(dir).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return {
      path: dir,
      entries: entries.slice(0, MAX_ENTRIES).map(({ name, kind, size }) => ({ name, kind, size })),
      total: entries.length,
      truncated: entries.length > MAX_ENTRIES,
    };
  },
});
