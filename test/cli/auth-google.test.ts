/**
 * `clawhive auth google` through the shipped binary: it prints the URL to open, the test plays
 * the browser by requesting the loopback redirect, and the account lands in the secret store as
 * a sealed secret (never printed). Against a local fake of Google's token endpoint; a bad
 * usage is a clear message and exit 2.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { after, before, test } from "node:test";
import { parseGoogleCredential } from "../../runtime/secrets/google/index.js";
import { fakeGoogle, playBrowser, type FakeGoogle } from "../secrets/google/fake-google.js";
import { BIN, clawhiveIn, cliPlace, type CliPlace } from "./fixtures.js";
import { Runtime } from "../../runtime/index.js";

let google: FakeGoogle;
let place: CliPlace;
before(async () => {
  google = await fakeGoogle();
  place = await cliPlace("clawhive-cli-auth-");
});
after(async () => google.close());

test("auth google: prints the URL, takes the redirect, stores the refresh token as a secret; control: a missing client id is exit 2", async () => {
  const env = { ...process.env };
  for (const name of ["CLAWHIVE_DATA_DIR", "CLAWHIVE_STORE_URL", "CLAWHIVE_SERVER", "CLAWHIVE_TOKEN"]) delete env[name];
  const child = spawn(process.execPath, [BIN, "auth", "google", "--client-id", "123-abc.apps.googleusercontent.com", "--scope", "gmail.send", "--token-endpoint", google.tokenEndpoint, "--data-dir", place.data], { env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
      const found = /^  (https:\/\/accounts\.google\.com\/\S+)$/m.exec(stdout);
      if (found) resolve(found[1]!);
    });
    child.on("close", () => reject(new Error(`exited before printing a URL: ${stderr}`)));
  });
  const page = await playBrowser(google, url);
  assert.equal(page.status, 200);
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  assert.equal(code, 0, stderr);
  assert.match(stdout, /^stored the Google account as secret google-oauth \(scopes: gmail\.send, gmail\.readonly\)$/m);
  assert.doesNotMatch(stdout + stderr, /1\/\/0g-refresh/, "the refresh token is never printed");
  assert.match(clawhiveIn(place, "secret", "list").stdout, /^google-oauth /m);
  const runtime = await Runtime.create({ dataDir: place.data, pluginDirs: [] });
  try {
    const stored = parseGoogleCredential(await runtime.secrets.get("google-oauth"));
    assert.equal(stored?.token_endpoint, google.tokenEndpoint);
    assert.match(stored?.refresh_token ?? "", /^1\/\/0g-refresh-\d+$/);
  } finally {
    await runtime.close();
  }
  const bad = clawhiveIn(place, "auth", "google");
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^clawhive: --client-id is required; usage: clawhive auth google/m);
});
