/** The calendar and mail files under test/fixtures that the conformance tests run, and temp dirs. */
import { writeFileSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestContext } from "node:test";
import { fileURLToPath } from "node:url";

/** The compiled tests run from dist/test/…; fixtures stay in the source tree. */
export const FIXTURES = fileURLToPath(new URL("../../../../test/fixtures/", import.meta.url));

/** Every file ending `ext` in the given fixture folders (not the hostile ones: hostile/corpus.test.ts runs those). */
export async function corpusFiles(folders: readonly string[], ext: string): Promise<Array<{ name: string; path: string }>> {
  const files: Array<{ name: string; path: string }> = [];
  for (const folder of folders) {
    for (const name of (await readdir(join(FIXTURES, folder))).sort()) {
      if (name.endsWith(ext)) files.push({ name: `${folder}/${name}`, path: join(FIXTURES, folder, name) });
    }
  }
  return files;
}

export async function tempDir(t: TestContext, prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** What one file's comparison found: keys only the reference has, keys only the proxy has. */
export interface Disagreement {
  reference: string[];
  ours: string[];
}

/** A hand-checked explanation of one file's disagreements (docs/calendar-mail-conformance.md lists them). */
export interface Explained extends Disagreement {
  why: string;
}

/** Writes what a run found to `CLAWHIVE_CONFORMANCE_OUT` (a JSON file), for updating the expectation tables. */
export function writeFound(found: unknown): void {
  const out = process.env.CLAWHIVE_CONFORMANCE_OUT;
  if (out !== undefined && out !== "") writeFileSync(out, JSON.stringify(found, null, 1));
}
