/**
 * A copy installed as a package (it lies in a node_modules folder) keeps no state in its own
 * folder: npm replaces it on the next install and may not let it be written. A clone does, as
 * before (its .clawhive). The installed layout itself is run in test/house/package-install.test.ts.
 */
import assert from "node:assert/strict";
import { join, sep } from "node:path";
import { test } from "node:test";
import { installedAsPackage } from "../../runtime/plugins/locations.js";

const CASES: Array<[path: string, installed: boolean]> = [
  [join(sep, "home", "me", "app", "node_modules", "clawhive"), true],
  [join(sep, "usr", "lib", "node_modules", "clawhive"), true],
  [join(sep, "home", "me", "app", "node_modules", "@scope", "clawhive"), true],
  // Controls: a clone, wherever it is, and names that only look alike.
  [join(sep, "home", "me", "clawhive"), false],
  [join(sep, "home", "me", "node_modules_old", "clawhive"), false],
  [join(sep, "home", "me", "my-node_modules", "clawhive"), false],
];

for (const [path, installed] of CASES) {
  test(`${path}: ${installed ? "installed as a package" : "a clone"}`, () => {
    assert.equal(installedAsPackage(path), installed);
  });
}
