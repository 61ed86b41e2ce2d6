import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * One secret key for the test suite's data dirs. The runtime seals its compiled plugin builds
 * with a key derived from the secret key and trusts no other build; with a fresh random key per
 * data dir, every test runtime (and every CLI child on a new data dir) would compile every
 * plugin again. Tests of the key itself make their own.
 */
export const TEST_SECRET_KEY = createHash("sha256").update("clawhive test suite secret key").digest();

/** Writes the suite's key as `<dataDir>/secret.key` (0600), unless one is there. Synchronous, for a helper that starts processes on the data dir at once. */
export function writeTestSecretKeySync(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true });
  try {
    writeFileSync(join(dataDir, "secret.key"), TEST_SECRET_KEY, { mode: 0o600, flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
}

/** `writeTestSecretKeySync`, for the async helpers and tests. */
export async function writeTestSecretKey(dataDir: string): Promise<void> {
  writeTestSecretKeySync(dataDir);
}

/**
 * The environment for a scaffolded plugin's own `node --test`, run by the suite: without
 * NODE_TEST_CONTEXT (which would make the inner run report to this runner), with the suite's
 * key, so its throwaway data dir trusts the first-party builds the suite sealed.
 */
export function scaffoldTestEnv(): NodeJS.ProcessEnv {
  const { NODE_TEST_CONTEXT: _, ...inherited } = process.env;
  return { ...inherited, CLAWHIVE_SECRET_KEY: TEST_SECRET_KEY.toString("base64") };
}
