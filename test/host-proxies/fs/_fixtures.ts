/** Temp-dir layouts and assertions shared by the fs proxy tests. */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { TestContext } from "node:test";
export { rejectsWith, throwsWith } from "../../helpers/host-errors.js";
export type { Expected } from "../../helpers/host-errors.js";


export interface Scratch {
  /** The temp root; everything below is removed after the test. */
  base: string;
  /** Host directory mounted as `/work` (rw) by most tests. */
  work: string;
  /** Host directory mounted nowhere: content here must never reach the guest. */
  outside: string;
}

export const OUTSIDE_SECRET = "OUTSIDE-SECRET";

/** A fresh scratch tree, removed when `t` ends. `files` maps paths relative to `base` to text. */
export async function scratch(t: TestContext, files: Record<string, string> = {}): Promise<Scratch> {
  const base = await mkdtemp(join(tmpdir(), "clawhive-fs-"));
  t.after(() => rm(base, { recursive: true, force: true }));
  const work = join(base, "work");
  const outside = join(base, "outside");
  await mkdir(work);
  await mkdir(outside);
  await writeFile(join(outside, "secret.txt"), OUTSIDE_SECRET);
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(dirname(join(base, rel)), { recursive: true });
    await writeFile(join(base, rel), text);
  }
  return { base, work, outside };
}

export const text = (bytes: Uint8Array): string => Buffer.from(bytes).toString("utf8");
export const bytes = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, "utf8"));

