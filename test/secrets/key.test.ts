import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { keyIdOf, SecretError } from "../../runtime/secrets/index.js";
import { loadSecretKey } from "../../runtime/secrets/key.js";
import { newKeyText, withPlace } from "./_fixtures.js";

function isSecretError(code: string, check: (message: string) => void = () => {}) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof SecretError, `expected SecretError, got ${String(error)}`);
    assert.equal(error.code, code);
    check(error.message);
    return true;
  };
}

const idOfText = (text: string) => keyIdOf(Buffer.from(text, "base64"));

describe("key management", () => {
  it("creates <data dir>/secret.key: 32 bytes, mode 0600, recorded by id, and reuses it", () =>
    withPlace(async (p) => {
      const path = join(p.dataDir, "secret.key");
      assert.equal(existsSync(path), false);
      const first = await p.open();
      const bytes = await readFile(path);
      assert.equal(bytes.length, 32);
      if (process.platform !== "win32") assert.equal((await stat(path)).mode & 0o777, 0o600);
      assert.equal(first.secrets.keyId, keyIdOf(bytes));
      const recorded = await first.store.execute("SELECT key_id, active FROM secret_keys");
      assert.deepEqual(recorded.rows.map((r) => [r.key_id, r.active]), [[keyIdOf(bytes), 1]]);
      await first.secrets.set("kept", "kept-value");
      await first.store.close();

      const second = await p.open();
      assert.deepEqual(await readFile(path), bytes, "the key file was rewritten");
      assert.equal(second.secrets.keyId, keyIdOf(bytes));
      assert.equal(await second.secrets.get("kept"), "kept-value");
      assert.deepEqual((await readdir(p.dataDir)).filter((f) => f.endsWith(".tmp")), [], "a temporary key file was left behind");
    }));

  it("a different key is refused with the key id the store expects, never a key; control: the right key opens", () =>
    withPlace(async (p) => {
      const right = newKeyText();
      const wrong = newKeyText();
      const first = await p.open({ keyFromEnv: right });
      await first.secrets.set("token", "token-value");
      await first.store.close();
      await assert.rejects(
        p.open({ keyFromEnv: wrong }),
        isSecretError("secret_key_mismatch", (message) => {
          assert.match(message, new RegExp(`expects key id ${idOfText(right)}, but this runtime's key \\(CLAWHIVE_SECRET_KEY\\) has id ${idOfText(wrong)}`));
          for (const key of [right, wrong]) {
            assert.ok(!message.includes(key), "a key leaked into the message");
            assert.ok(!message.includes(Buffer.from(key, "base64").toString("hex")), "a key leaked into the message");
          }
        }),
      );
      const control = await p.open({ keyFromEnv: right });
      assert.equal(await control.secrets.get("token"), "token-value");
    }));

  it("a second node without the key is told which key to bring and mints none; control: with the key file it reads", async () => {
    const otherDataDir = await mkdtemp(join(tmpdir(), "clawhive-secrets-node2-"));
    try {
      await withPlace(async (p) => {
        const first = await p.open();
        await first.secrets.set("shared", "shared-value");
        await first.store.close();
        await assert.rejects(
          p.open({ dataDir: otherDataDir }),
          isSecretError("secret_key_missing", (message) => assert.match(message, new RegExp(`sealed with key id ${first.secrets.keyId} and this node has no key; copy that key to`))),
        );
        assert.equal(existsSync(join(otherDataDir, "secret.key")), false, "a node without the key minted one");
        const second = await p.open({ dataDir: otherDataDir, keyFile: join(p.dataDir, "secret.key") });
        assert.equal(await second.secrets.get("shared"), "shared-value");
      });
    } finally {
      await rm(otherDataDir, { recursive: true, force: true });
    }
  });

  it("the env key overrides the key file and the default file; none is created", () =>
    withPlace(async (p) => {
      const env = newKeyText();
      const file = join(p.dataDir, "other.key");
      await writeFile(file, randomBytes(32));
      const { secrets } = await p.open({ keyFromEnv: env, keyFile: file });
      assert.equal(secrets.keyId, idOfText(env));
      assert.equal(existsSync(join(p.dataDir, "secret.key")), false);
    }));

  it("an empty env key counts as unset (control: the default file is used)", () =>
    withPlace(async (p) => {
      const { secrets } = await p.open({ keyFromEnv: "" });
      assert.equal(secrets.keyId, keyIdOf(await readFile(join(p.dataDir, "secret.key"))));
    }));

  it("a key file may hold 32 raw bytes or their base64; both give the same key", () =>
    withPlace(async (p) => {
      const key = randomBytes(32);
      await writeFile(join(p.dataDir, "raw.key"), key);
      await writeFile(join(p.dataDir, "text.key"), `${key.toString("base64")}\n`);
      const raw = await loadSecretKey({ dataDir: p.dataDir, keyFile: join(p.dataDir, "raw.key") }, { mayCreate: false });
      const text = await loadSecretKey({ dataDir: p.dataDir, keyFile: join(p.dataDir, "text.key") }, { mayCreate: false });
      assert.equal(raw.id, keyIdOf(key));
      assert.equal(text.id, keyIdOf(key));
      assert.equal(JSON.stringify(raw).includes(key.toString("base64")), false);
    }));

  it("malformed keys are refused clearly, without echoing them", async () => {
    const envCases: Array<[string, string]> = [
      ["too short", randomBytes(16).toString("base64")],
      ["too long", randomBytes(33).toString("base64")],
      ["not base64", "!".repeat(44)],
      ["base64url", Buffer.alloc(32, 0xfb).toString("base64url") + "="], // "-_v7…": not standard base64
      ["hex", randomBytes(32).toString("hex")],
    ];
    await withPlace(async (p) => {
      for (const [what, text] of envCases) {
        await assert.rejects(
          loadSecretKey({ dataDir: p.dataDir, keyFromEnv: text }, { mayCreate: true }),
          isSecretError("secret_key_invalid", (message) => {
            assert.match(message, /^CLAWHIVE_SECRET_KEY: expected the base64 of 32 random bytes/, what);
            assert.ok(!message.includes(text), `${what}: echoed the key`);
          }),
        );
      }
      await writeFile(join(p.dataDir, "short.key"), randomBytes(31));
      await assert.rejects(
        loadSecretKey({ dataDir: p.dataDir, keyFile: join(p.dataDir, "short.key") }, { mayCreate: true }),
        isSecretError("secret_key_invalid", (message) => assert.match(message, /^key file .*short\.key: expected the base64/)),
      );
      await assert.rejects(
        loadSecretKey({ dataDir: p.dataDir, keyFile: join(p.dataDir, "absent.key") }, { mayCreate: true }),
        isSecretError("secret_key_invalid", (message) => assert.match(message, /absent\.key: does not exist/)),
      );
      assert.equal(existsSync(join(p.dataDir, "absent.key")), false, "a named key file must not be minted");
      // Control: a well-formed env key loads.
      const good = newKeyText();
      assert.equal((await loadSecretKey({ dataDir: p.dataDir, keyFromEnv: ` ${good}\n` }, { mayCreate: true })).id, idOfText(good));
    });
  });

  it("racing creators in one process end with one key", () =>
    withPlace(async (p) => {
      const keys = await Promise.all(Array.from({ length: 8 }, () => loadSecretKey({ dataDir: p.dataDir }, { mayCreate: true })));
      const onDisk = keyIdOf(await readFile(join(p.dataDir, "secret.key")));
      assert.deepEqual(new Set(keys.map((k) => k.id)), new Set([onDisk]));
      assert.equal(keys.filter((k) => k.created).length, 1, "exactly one caller created the file");
    }));

  it("racing processes end with one key", async () => {
    const keyModule = new URL("../../runtime/secrets/key.js", import.meta.url).href;
    const script = `
      const { loadSecretKey } = await import(process.env.KEY_MODULE);
      while (Date.now() < Number(process.env.START_AT)) {}
      const key = await loadSecretKey({ dataDir: process.env.DATA_DIR }, { mayCreate: true });
      process.stdout.write(key.id + " " + key.created);`;
    for (let round = 0; round < 3; round++) {
      await withPlace(async (p) => {
        const dataDir = join(p.dataDir, "fresh"); // also exercises creating the directory
        const startAt = String(Date.now() + 400);
        const runs = Array.from({ length: 4 }, () =>
          new Promise<string>((resolve, reject) => {
            const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
              env: { PATH: process.env.PATH ?? "", KEY_MODULE: keyModule, DATA_DIR: dataDir, START_AT: startAt },
            });
            let out = "";
            let err = "";
            child.stdout.on("data", (d: Buffer) => (out += d.toString()));
            child.stderr.on("data", (d: Buffer) => (err += d.toString()));
            child.on("error", reject);
            child.on("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`child exited ${code}: ${err}`))));
          }),
        );
        const results = (await Promise.all(runs)).map((line) => line.split(" "));
        const onDisk = keyIdOf(await readFile(join(dataDir, "secret.key")));
        assert.deepEqual(new Set(results.map(([id]) => id)), new Set([onDisk]), `round ${round}: processes disagree on the key`);
        assert.equal(results.filter(([, created]) => created === "true").length, 1, `round ${round}: not exactly one creator`);
        assert.deepEqual((await readdir(dataDir)).sort(), ["secret.key"]);
      });
    }
  });
});
