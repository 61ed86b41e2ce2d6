import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { openSecretStore } from "../../runtime/secrets/index.js";
import { openStore, systemClock } from "../../runtime/store/index.js";
import { BIN, cliPlace, type CliPlace } from "./fixtures.js";

let place: CliPlace;

/** The real binary on the place's data dir, with `stdin` piped in and no clawhive variables inherited. */
function clawhive(args: string[], options: { stdin?: string; env?: Record<string, string> } = {}) {
  const env = { ...process.env };
  for (const name of Object.keys(env)) if (name.startsWith("CLAWHIVE_") && name !== "CLAWHIVE_BUILD_CACHE") delete env[name];
  const result = spawnSync(process.execPath, [BIN, ...args, "--data-dir", place.data], {
    input: options.stdin ?? "",
    encoding: "utf8",
    timeout: 300_000,
    env: { ...env, ...options.env },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** What the store really holds, read through the library with the key the CLI created. */
async function storedValue(name: string): Promise<string> {
  const store = await openStore({ url: `file:${join(place.data, "clawhive.db")}` });
  try {
    return await (await openSecretStore(store, { dataDir: place.data, clock: systemClock })).get(name);
  } finally {
    await store.close();
  }
}

before(async () => {
  place = await cliPlace("clawhive-cli-secret-");
});
after(() => rm(place.root, { recursive: true, force: true }));

describe("clawhive secret", () => {
  it("set reads the value from stdin, dropping one trailing newline", async () => {
    const set = clawhive(["secret", "set", "api_key"], { stdin: "sk-cli-value-1\n" });
    assert.equal(set.code, 0, set.stderr);
    assert.equal(set.stdout.trim(), "created secret api_key");
    assert.equal(await storedValue("api_key"), "sk-cli-value-1");
    const key = await stat(join(place.data, "secret.key"));
    assert.equal(key.mode & 0o777, 0o600);

    const again = clawhive(["secret", "set", "api_key"], { stdin: "two newlines\n\n" });
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout.trim(), "updated secret api_key");
    assert.equal(await storedValue("api_key"), "two newlines\n");
    const crlf = clawhive(["secret", "set", "api_key"], { stdin: "crlf-value\r\n" });
    assert.equal(crlf.code, 0, crlf.stderr);
    assert.equal(await storedValue("api_key"), "crlf-value");
  });

  it("set --value-file reads the value from a file", async () => {
    const file = join(place.root, "token.txt");
    await writeFile(file, "file-token-value\n");
    const { code, stderr } = clawhive(["secret", "set", "from_file", "--value-file", file]);
    assert.equal(code, 0, stderr);
    assert.equal(await storedValue("from_file"), "file-token-value");
  });

  it("list shows names and times, never values; --json too", () => {
    const text = clawhive(["secret", "list"]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^api_key {4}created \d{4}-\d\d-\d\dT[\d:.]+Z {2}updated \d{4}-.*Z$/m);
    assert.match(text.stdout, /^from_file {2}created /m);
    const json = clawhive(["secret", "list", "--json"]);
    assert.equal(json.code, 0, json.stderr);
    const listed = JSON.parse(json.stdout) as Array<{ name: string; created_at: number; updated_at: number }>;
    assert.deepEqual(listed.map((s) => s.name), ["api_key", "from_file"]);
    assert.ok(listed.every((s) => Object.keys(s).sort().join() === "created_at,name,updated_at"));
    for (const out of [text.stdout, text.stderr, json.stdout, json.stderr]) {
      assert.ok(!out.includes("crlf-value") && !out.includes("file-token-value"), "a value was printed");
    }
  });

  it("the database files never hold a value in plaintext", async () => {
    const files = (await readdir(place.data)).filter((f) => f.startsWith("clawhive.db"));
    // -wal and -shm come and go with connections: read what is there.
    const bytes = Buffer.concat(await Promise.all(files.map((f) => readFile(join(place.data, f)).catch(() => Buffer.alloc(0)))));
    assert.equal(bytes.indexOf("file-token-value"), -1);
    assert.ok(bytes.indexOf("from_file") >= 0, "control: names are stored in clear");
  });

  it("a value on the command line is refused with the reason, and never echoed", () => {
    const cases = [
      ["secret", "set", "leaky", "sk-ARGV-LEAK-1"],
      ["secret", "set", "leaky", "--value", "sk-ARGV-LEAK-1"],
      ["secret", "set", "leaky", "--value=sk-ARGV-LEAK-1"],
    ];
    for (const args of cases) {
      const { code, stdout, stderr } = clawhive(args, { stdin: "from-stdin-value" });
      assert.equal(code, 2, args.join(" "));
      assert.match(stderr, /does not take the value on the command line: arguments are visible to every user through 'ps'.*shell history/);
      assert.ok(!stderr.includes("sk-ARGV-LEAK-1") && !stdout.includes("sk-ARGV-LEAK-1"), "the value was echoed");
    }
    assert.equal(clawhive(["secret", "rm", "leaky"]).code, 1, "a refused set must not have stored anything");
  });

  it("usage errors exit 2: no name, a bad name (not echoed), an empty value, an unknown subcommand", () => {
    const cases: Array<[string[], string, RegExp]> = [
      [["secret", "set"], "v-1234", /usage: clawhive secret set NAME/],
      [["secret", "set", "Sk-Pasted-Value"], "v-1234", /secret name: must match/],
      [["secret", "set", "empty"], "", /secret empty: the value is empty/],
      [["secret", "set", "empty"], "\n", /secret empty: the value is empty/],
      [["secret", "frobnicate"], "", /unknown secret command 'frobnicate'/],
      [["secret", "list", "extra"], "", /secret list takes no arguments/],
    ];
    for (const [args, stdin, pattern] of cases) {
      const { code, stderr } = clawhive(args, { stdin });
      assert.equal(code, 2, `${args.join(" ")}: ${stderr}`);
      assert.match(stderr, pattern);
      assert.ok(!stderr.includes("Sk-Pasted-Value"));
    }
  });

  it("rm removes a secret; a missing one exits 1", () => {
    const rmOk = clawhive(["secret", "rm", "from_file"]);
    assert.equal(rmOk.code, 0, rmOk.stderr);
    assert.equal(rmOk.stdout.trim(), "removed secret from_file");
    const again = clawhive(["secret", "rm", "from_file"]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /secret from_file: not found/);
    assert.deepEqual(JSON.parse(clawhive(["secret", "list", "--json"]).stdout).map((s: { name: string }) => s.name), ["api_key"]);
  });

  it("a different key is refused, naming the key id the store expects", () => {
    const { code, stderr } = clawhive(["secret", "list"], { env: { CLAWHIVE_SECRET_KEY: randomBytes(32).toString("base64") } });
    assert.equal(code, 1);
    assert.match(stderr, /the store .* expects key id [0-9a-f]{16}, but this runtime's key \(CLAWHIVE_SECRET_KEY\) has id [0-9a-f]{16}/);
  });

  it("list and rm without a store exit 1 and create nothing", async () => {
    const empty = await cliPlace("clawhive-cli-secret-empty-");
    // A place comes with the suite's secret key in its data dir; this one must start empty.
    await rm(empty.data, { recursive: true, force: true });
    try {
      for (const args of [["secret", "list"], ["secret", "rm", "x"]]) {
        const result = spawnSync(process.execPath, [BIN, ...args, "--data-dir", empty.data], { encoding: "utf8", env: { PATH: process.env.PATH ?? "" } });
        assert.equal(result.status, 1, result.stderr);
        assert.match(result.stderr, /no store at/);
      }
      assert.deepEqual(await readdir(empty.root), ["agents"]);
    } finally {
      await rm(empty.root, { recursive: true, force: true });
    }
  });

  it("--help explains the commands and why values come from stdin", () => {
    const { code, stdout } = clawhive(["secret", "--help"]);
    assert.equal(code, 0);
    assert.match(stdout, /clawhive secret set NAME \[--value-file PATH\]/);
    assert.match(stdout, /Never from the command line/);
    assert.match(stdout, /Exit codes: 0 ok; 1 no such secret/);
  });
});
