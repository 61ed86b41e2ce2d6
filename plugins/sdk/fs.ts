/**
 * SDK helpers over `clawhive:host/fs`: import these only in a plugin whose world imports the fs
 * proxy. (They live apart from `index.ts` because an import of a host interface stays in the
 * bundle, and a component may import only what its world declares.)
 */
export { readText, writeText } from "./text.js";
export type { WriteTextOptions } from "./text.js";
export { baseName, joinPath, parentPath, resolvePath } from "./paths.js";
