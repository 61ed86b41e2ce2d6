/**
 * How a proposal reads the tools only a plugin's own `describe` (or `list_tools`) can list: the
 * binary compiled under the provisional manifest and described in an unbound instance, as
 * install reads it (every host call refused), then unloaded.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Sandbox } from "../../sandbox/index.js";
import { sha256 } from "../artifact.js";
import { compilePlugin } from "../compile.js";
import type { ProposalDescriber } from "./propose.js";

/** A describer over `sandbox`, compiling into `cacheDir`. */
export function sandboxDescriber(sandbox: Sandbox, cacheDir: string, onProgress?: (line: string) => void): ProposalDescriber {
  return async (manifest, bytes) => {
    const artifact = await compilePlugin({ manifest, bytes, sha256: sha256(bytes) }, { cacheDir, ...(onProgress ? { onProgress } : {}) });
    const plugin = await sandbox.load(artifact);
    try {
      return await sandbox.describe(plugin);
    } finally {
      sandbox.unload(plugin);
    }
  };
}

/**
 * A describer with a sandbox and a build folder of its own, made on first use and gone after
 * `close` (a command that proposes once need not keep either).
 */
export function scratchDescriber(onProgress?: (line: string) => void): { describe: ProposalDescriber; close: () => Promise<void> } {
  let made: { sandbox: Sandbox; dir: string } | undefined;
  return {
    describe: async (manifest, bytes) => {
      made ??= { sandbox: new Sandbox({ workers: 1, poolSize: 0 }), dir: await mkdtemp(join(tmpdir(), "clawhive-propose-")) };
      return sandboxDescriber(made.sandbox, made.dir, onProgress)(manifest, bytes);
    },
    close: async () => {
      if (!made) return;
      await made.sandbox.close();
      await rm(made.dir, { recursive: true, force: true });
    },
  };
}
