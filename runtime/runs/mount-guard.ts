/**
 * The forbidden mount roots of one runtime (host-proxies/fs/forbidden-roots.ts): the fixed
 * system roots plus this runtime's own state, from its options — data dir, store file, secret
 * key file(s), build cache, mail and calendar folders, per-agent memory files — and the install
 * folder and the runtime user's home. Built once per runtime (or per CLI command) and passed to
 * every place that accepts a mount.
 */
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { createMountHostGuard, type MountHostGuard } from "../../host-proxies/fs/host-path.js";
import { PROJECT_ROOT } from "../plugins/locations.js";
import { nodeModulesDirs } from "../plugins/package-dir.js";
import { parseStoreUrl } from "../store/url.js";

export const DEFAULT_KEY_FILE_NAME = "secret.key";

export interface RuntimePathsOptions {
  dataDir: string;
  /** Default `file:<dataDir>/clawhive.db`; a server URL or `:memory:` has no file. */
  storeUrl?: string | undefined;
  secretKeyFile?: string | undefined;
  buildCacheDir: string;
  /** A Maildir other than `<dataDir>/mail`. */
  mailDir?: string | undefined;
  /** A calendar folder other than `<dataDir>/calendars`. */
  calendarDir?: string | undefined;
  /** Default the running user's home; tests pass their own. */
  home?: string | undefined;
  /** Default the project's install folder. */
  installDir?: string | undefined;
}

function storeFileOf(url: string | undefined, dataDir: string): string | undefined {
  if (url === undefined) return join(dataDir, "clawhive.db");
  try {
    const location = parseStoreUrl(url, { cwd: dataDir });
    return location.kind === "file" ? location.path : undefined;
  } catch {
    // The store refuses the URL itself when it opens, with its own message.
    return undefined;
  }
}

export function runtimeMountGuard(options: RuntimePathsOptions): MountHostGuard {
  const dataDir = resolve(options.dataDir);
  const installDir = options.installDir ?? PROJECT_ROOT;
  const keyFiles = [join(dataDir, DEFAULT_KEY_FILE_NAME), ...(options.secretKeyFile === undefined ? [] : [resolve(options.secretKeyFile)])];
  return createMountHostGuard({
    dataDir,
    storeFile: storeFileOf(options.storeUrl, dataDir),
    keyFile: keyFiles[keyFiles.length - 1],
    buildCacheDir: resolve(options.buildCacheDir),
    installDir,
    home: options.home ?? homedir(),
    runtimePaths: [
      ...(keyFiles.length > 1 ? [{ path: keyFiles[0]!, what: "the runtime's default secret key file" }] : []),
      { path: resolve(dataDir, options.mailDir ?? "mail"), what: "the runtime's Maildir (read only through gmail.read)" },
      { path: resolve(dataDir, options.calendarDir ?? "calendars"), what: "the runtime's calendars (reached only through the calendar grants)" },
      { path: join(dataDir, "agents"), what: "the agents' memory files (written only through memory)" },
      // Resolved on its own: node_modules may be a link to a folder outside the install folder.
      // Installed as a dependency, the runtime loads its own from the node_modules npm hoisted them to.
      ...[join(installDir, "node_modules"), ...nodeModulesDirs(installDir)]
        .filter((path, i, all) => all.indexOf(path) === i)
        .map((path) => ({ path, what: "the runtime's dependencies (code it loads)" })),
    ],
  });
}
