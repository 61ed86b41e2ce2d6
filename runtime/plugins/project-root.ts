/** Where this copy of clawhive lies, and whether npm installed it there as a package. */
import { dirname, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The project root: this file lives at dist/runtime/plugins/ once compiled, and the command line's
 * bundle that also holds it at dist/runtime/cli-bundle/, the same depth.
 */
export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

/**
 * Whether `root` was installed as a package (`npm install clawhive`: it lies in a node_modules
 * folder). Its folder is then npm's, replaced by the next install and perhaps not writable: state
 * (a data dir, built plugins) goes where the command runs, never into it.
 */
export function installedAsPackage(root: string = PROJECT_ROOT): boolean {
  return root.split(sep).includes("node_modules");
}
