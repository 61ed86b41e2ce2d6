import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { defaultBuildCacheDir, PROJECT_ROOT } from "../../../runtime/plugins/locations.js";

test("the build cache: CLAWHIVE_BUILD_CACHE when set, the project's .clawhive/build when unset or empty", () => {
  const before = process.env.CLAWHIVE_BUILD_CACHE;
  try {
    process.env.CLAWHIVE_BUILD_CACHE = "/var/cache/clawhive-builds";
    assert.equal(defaultBuildCacheDir(), "/var/cache/clawhive-builds");
    // Empty is unset: taken as a path it would be the working folder, filled with build output.
    process.env.CLAWHIVE_BUILD_CACHE = "";
    assert.equal(defaultBuildCacheDir(), join(PROJECT_ROOT, ".clawhive", "build"));
    delete process.env.CLAWHIVE_BUILD_CACHE;
    assert.equal(defaultBuildCacheDir(), join(PROJECT_ROOT, ".clawhive", "build"));
  } finally {
    if (before === undefined) delete process.env.CLAWHIVE_BUILD_CACHE;
    else process.env.CLAWHIVE_BUILD_CACHE = before;
  }
});
