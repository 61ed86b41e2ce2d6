/**
 * The `files` plugin: read, write, edit, list and search files inside the instance's mounts,
 * through `clawhive:host/fs` only. Walks and searches are one bulk host call each (`walk`,
 * `search`); the guest shapes the calls and the answers.
 *
 * AssemblyScript, compiled to a core module of some KiB (see docs/plugins.md).
 */
import { definePlugin } from "../../sdk-as/index";
import { EditFile } from "./edit-file";
import { Glob } from "./glob";
import { Grep } from "./grep";
import { ListDir } from "./list-dir";
import { ReadFile } from "./read-file";
import { WriteFile } from "./write-file";

definePlugin([new ReadFile(), new WriteFile(), new EditFile(), new ListDir(), new Glob(), new Grep()]);

export { cabi_realloc, describe, call, post_describe, post_call } from "../../sdk-as/index";
