/**
 * The `files` plugin: read, write, edit, list and search files inside the instance's mounts,
 * through `clawhive:host/fs` only.
 */
import { definePlugin } from "../../sdk/index.js";
import { editFile } from "./edit-file.js";
import { glob } from "./glob.js";
import { grep } from "./grep.js";
import { listDir } from "./list-dir.js";
import { readFile } from "./read-file.js";
import { writeFile } from "./write-file.js";

export const tools = definePlugin({
  tools: {
    read_file: readFile,
    write_file: writeFile,
    edit_file: editFile,
    list_dir: listDir,
    glob,
    grep,
  },
});
