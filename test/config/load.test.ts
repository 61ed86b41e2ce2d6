import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ConfigError, loadConfig, type LoadConfigOptions } from "../../runtime/config/index.js";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";

let root: string;
let n = 0;
before(async () => {
  root = await mkdtemp(join(tmpdir(), "clawhive-config-"));
});
after(() => rm(root, { recursive: true, force: true }));

/** A fresh cwd holding `files` (name → text). */
async function dir(files: Record<string, string> = {}): Promise<string> {
  const cwd = join(root, `c${++n}`);
  await mkdir(cwd);
  for (const [name, text] of Object.entries(files)) {
    await mkdir(join(cwd, name, ".."), { recursive: true });
    await writeFile(join(cwd, name), text);
  }
  return cwd;
}

const load = (cwd: string, options: Partial<LoadConfigOptions> = {}) => loadConfig({ env: {}, cwd, ...options });

/** The ConfigError's message lines. */
async function problems(promise: Promise<unknown>): Promise<string[]> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
    assert.equal(error.code, "invalid_input");
    assert.equal(error.status, 400);
    return error.message.split("\n");
  }
  assert.fail("expected the config to be refused");
}

describe("defaults", () => {
  test("the default data dir is the nearest .clawhive holding a store from the cwd up", async () => {
    const root = await dir({ ".clawhive/clawhive.db": "" });
    const sub = join(root, "plugins", "mine");
    await mkdir(sub, { recursive: true });
    assert.equal((await load(sub)).dataDir, join(root, ".clawhive"));
    // Control: a .clawhive without a store (a build cache alone) is not a store.
    const bare = await dir({ ".clawhive/build/x": "" });
    assert.equal((await load(bare)).dataDir, join(PROJECT_ROOT, ".clawhive"));
  });

  test("with no file, no variable and no flag, every setting has its default", async () => {
    const cwd = await dir();
    const config = await load(cwd);
    assert.equal(config.file, null);
    // No store from cwd up: the project's own data dir, never a new one in the cwd.
    assert.equal(config.dataDir, join(PROJECT_ROOT, ".clawhive"));
    assert.equal(config.store.url, `file:${join(PROJECT_ROOT, ".clawhive", "clawhive.db")}`);
    assert.equal(config.store.authToken, undefined);
    assert.equal(config.agentsDir, join(PROJECT_ROOT, "capabilities"));
    assert.deepEqual(
      { host: config.server.host, port: config.server.port, allow: config.server.allowNonLoopback, cors: config.server.corsOrigins },
      { host: "127.0.0.1", port: 7878, allow: false, cors: [] },
    );
    assert.equal(config.server.bodyLimitBytes, 1 << 20);
    assert.equal(config.server.maxConcurrentRequests, 64);
    assert.equal(config.sandbox.poolSize, 1);
    assert.equal(config.mail, undefined);
    assert.equal(config.calendar, undefined);
    assert.ok(Object.values(config.sources).every((s) => s.kind === "default"));
  });

  test("clawhive.yaml in the cwd is read without being named", async () => {
    const cwd = await dir({ "clawhive.yaml": "sandbox:\n  pool_size: 3\n" });
    const config = await load(cwd);
    assert.equal(config.file, join(cwd, "clawhive.yaml"));
    assert.equal(config.sandbox.poolSize, 3);
    assert.deepEqual(config.sources["sandbox.pool_size"], { kind: "file", file: "clawhive.yaml" });
  });

  test("an empty file is a valid file with every default", async () => {
    const cwd = await dir({ "clawhive.yaml": "# nothing yet\n" });
    assert.equal((await load(cwd)).sandbox.poolSize, 1);
  });
});

describe("precedence: flag > env > file > default", () => {
  const file = "data_dir: from-file\nstore:\n  url: file:file.db\nserver:\n  listen: 127.0.0.2:1111\nsandbox:\n  pool_size: 2\n";
  const rows: Array<{ name: string; env?: Record<string, string>; flags?: Record<string, unknown>; expect: { dataDir: string; store: string; host: string; port: number; pool: number } }> = [
    { name: "file only", expect: { dataDir: "from-file", store: "file.db", host: "127.0.0.2", port: 1111, pool: 2 } },
    {
      name: "env over file",
      env: { CLAWHIVE_DATA_DIR: "from-env", CLAWHIVE_STORE_URL: "file:env.db", CLAWHIVE_LISTEN: "127.0.0.3:2222", CLAWHIVE_POOL_SIZE: "4" },
      expect: { dataDir: "from-env", store: "env.db", host: "127.0.0.3", port: 2222, pool: 4 },
    },
    {
      name: "flags over env",
      env: { CLAWHIVE_DATA_DIR: "from-env", CLAWHIVE_STORE_URL: "file:env.db", CLAWHIVE_LISTEN: "127.0.0.3:2222" },
      flags: { "data-dir": "from-flag", store: "file:flag.db", port: "3333" },
      expect: { dataDir: "from-flag", store: "flag.db", host: "127.0.0.3", port: 3333, pool: 2 },
    },
    {
      name: "CLAWHIVE_HOST and CLAWHIVE_PORT (serve's old variables) set one part each",
      env: { CLAWHIVE_HOST: "localhost" },
      expect: { dataDir: "from-file", store: "file.db", host: "localhost", port: 1111, pool: 2 },
    },
    {
      name: "CLAWHIVE_LISTEN wins over CLAWHIVE_HOST/PORT",
      env: { CLAWHIVE_HOST: "localhost", CLAWHIVE_PORT: "9", CLAWHIVE_LISTEN: "127.0.0.4:4444" },
      expect: { dataDir: "from-file", store: "file.db", host: "127.0.0.4", port: 4444, pool: 2 },
    },
    {
      name: "an empty variable counts as unset",
      env: { CLAWHIVE_DATA_DIR: "", CLAWHIVE_POOL_SIZE: "", CLAWHIVE_LISTEN: "" },
      expect: { dataDir: "from-file", store: "file.db", host: "127.0.0.2", port: 1111, pool: 2 },
    },
  ];
  for (const row of rows) {
    test(row.name, async () => {
      const cwd = await dir({ "clawhive.yaml": file });
      const config = await load(cwd, { env: row.env ?? {}, flags: row.flags ?? {} });
      assert.equal(config.dataDir, join(cwd, row.expect.dataDir));
      assert.equal(config.store.url, `file:${join(cwd, row.expect.store)}`);
      assert.equal(config.server.host, row.expect.host);
      assert.equal(config.server.port, row.expect.port);
      assert.equal(config.sandbox.poolSize, row.expect.pool);
    });
  }

  test("the store defaults to the data dir's, wherever the data dir came from", async () => {
    const cwd = await dir();
    const config = await load(cwd, { env: { CLAWHIVE_DATA_DIR: "/srv/hive" } });
    assert.equal(config.store.url, "file:/srv/hive/clawhive.db");
    assert.deepEqual(config.sources.data_dir, { kind: "env", name: "CLAWHIVE_DATA_DIR" });
  });

  test("relative paths in a file resolve against the file's folder; in env and flags, against the cwd", async () => {
    const cwd = await dir({ "etc/hive.yaml": "data_dir: ./data\nagents_dir: agents\nsecrets:\n  key_file: key\nstore:\n  url: file:db/hive.db\n" });
    const fromFile = await load(cwd, { file: "etc/hive.yaml" });
    assert.equal(fromFile.dataDir, join(cwd, "etc", "data"));
    assert.equal(fromFile.agentsDir, join(cwd, "etc", "agents"));
    assert.equal(fromFile.secrets.keyFile, join(cwd, "etc", "key"));
    assert.equal(fromFile.store.url, `file:${join(cwd, "etc", "db", "hive.db")}`);
    const fromEnv = await load(cwd, { file: "etc/hive.yaml", env: { CLAWHIVE_DATA_DIR: "./data" } });
    assert.equal(fromEnv.dataDir, join(cwd, "data"));
  });

  test("--config (as a flag value or the file option) beats CLAWHIVE_CONFIG, which beats ./clawhive.yaml", async () => {
    const cwd = await dir({ "clawhive.yaml": "sandbox: {pool_size: 1}\n", "a.yaml": "sandbox: {pool_size: 2}\n", "b.json": '{"sandbox": {"pool_size": 3}}' });
    assert.equal((await load(cwd, { env: { CLAWHIVE_CONFIG: "b.json" } })).sandbox.poolSize, 3);
    assert.equal((await load(cwd, { env: { CLAWHIVE_CONFIG: "b.json" }, flags: { config: "a.yaml" } })).sandbox.poolSize, 2);
    assert.equal((await load(cwd, { env: { CLAWHIVE_CONFIG: "b.json" }, file: join(cwd, "a.yaml") })).sandbox.poolSize, 2);
  });

  test("the integer, boolean and list variables are read from text", async () => {
    const cwd = await dir();
    const config = await load(cwd, {
      env: {
        CLAWHIVE_WORKERS: "3",
        CLAWHIVE_CALL_TIMEOUT_MS: " 5000 ",
        CLAWHIVE_MEMORY_MAX_MB: "64",
        CLAWHIVE_BODY_LIMIT_BYTES: "2048",
        CLAWHIVE_MAX_CONCURRENT_REQUESTS: "8",
        CLAWHIVE_LISTEN: "0.0.0.0:80",
        CLAWHIVE_ALLOW_NON_LOOPBACK: "yes",
        CLAWHIVE_CORS_ORIGINS: "https://a.example.com, http://localhost:5173,,https://a.example.com",
        CLAWHIVE_STORE_AUTH_TOKEN: "tok",
      },
    });
    assert.deepEqual(config.sandbox, { ...config.sandbox, workers: 3, callTimeoutMs: 5000, memoryMaxMb: 64 });
    assert.equal(config.server.bodyLimitBytes, 2048);
    assert.equal(config.server.maxConcurrentRequests, 8);
    assert.equal(config.server.allowNonLoopback, true);
    assert.deepEqual(config.server.corsOrigins, ["https://a.example.com", "http://localhost:5173"]);
    assert.equal(config.store.authToken, "tok");
  });
});

describe("errors name the source and the setting", () => {
  const rows: Array<{ name: string; files?: Record<string, string>; env?: Record<string, string>; flags?: Record<string, unknown>; file?: string; expect: Array<string | RegExp> }> = [
    { name: "a bad listen address in the file", files: { "clawhive.yaml": "server:\n  listen: 7878\n" }, expect: ["config clawhive.yaml: server.listen: expected host:port, e.g. 127.0.0.1:7878"] },
    { name: "a listen address with no port", files: { "clawhive.yaml": "server:\n  listen: localhost\n" }, expect: ["config clawhive.yaml: server.listen: expected host:port, e.g. 127.0.0.1:7878"] },
    { name: "an IPv6 listen address without brackets", env: { CLAWHIVE_LISTEN: "::1:7878" }, expect: ["env CLAWHIVE_LISTEN: expected host:port, e.g. 127.0.0.1:7878"] },
    { name: "a pool size out of range", env: { CLAWHIVE_POOL_SIZE: "65" }, expect: ["env CLAWHIVE_POOL_SIZE: expected an integer 0..64"] },
    { name: "a pool size that is not a number", env: { CLAWHIVE_POOL_SIZE: "lots" }, expect: ["env CLAWHIVE_POOL_SIZE: expected an integer 0..64"] },
    { name: "a pool size in hex", env: { CLAWHIVE_POOL_SIZE: "0x10" }, expect: ["env CLAWHIVE_POOL_SIZE: expected an integer 0..64"] },
    { name: "a fractional pool size in the file", files: { "clawhive.yaml": "sandbox:\n  pool_size: 1.5\n" }, expect: ["config clawhive.yaml: sandbox.pool_size: expected an integer 0..64"] },
    { name: "a quoted number in the file", files: { "clawhive.yaml": "sandbox:\n  workers: '2'\n" }, expect: ["config clawhive.yaml: sandbox.workers: expected an integer 1..64"] },
    { name: "a port flag out of range", flags: { port: "70000" }, expect: ["flag --port: expected an integer 0..65535"] },
    { name: "a boolean variable that is not one", env: { CLAWHIVE_ALLOW_NON_LOOPBACK: "sure" }, expect: ["env CLAWHIVE_ALLOW_NON_LOOPBACK: expected true or false"] },
    { name: "YAML 1.1's yes is not a boolean", files: { "clawhive.yaml": "server:\n  allow_non_loopback: yes\n" }, expect: ["config clawhive.yaml: server.allow_non_loopback: expected true or false"] },
    {
      name: "a typo in a key",
      files: { "clawhive.yaml": "sandbox:\n  poolsize: 2\n" },
      expect: [/^config clawhive\.yaml: sandbox\.poolsize: unknown key "poolsize"; expected one of: workers, pool_size, /],
    },
    { name: "an unknown top-level key", files: { "clawhive.yaml": "listen: 127.0.0.1:1\n" }, expect: [/^config clawhive\.yaml: listen: unknown key "listen"; expected one of: .*server/] },
    { name: "a key written twice", files: { "clawhive.yaml": "data_dir: a\ndata_dir: b\n" }, expect: [/^config clawhive\.yaml: \(root\): not valid YAML \(line 2, column 1\): Map keys must be unique/] },
    { name: "YAML that does not parse", files: { "clawhive.yaml": "server: [\n" }, expect: [/^config clawhive\.yaml: \(root\): not valid YAML/] },
    { name: "a .json file that is not JSON", files: { "c.json": "data_dir: x\n" }, file: "c.json", expect: [/^config c\.json: \(root\): not valid JSON: /] },
    { name: "a file that is a list", files: { "clawhive.yaml": "- a\n" }, expect: ["config clawhive.yaml: (root): expected a mapping of settings (key: value), got a list"] },
    { name: "a named file that does not exist", file: "nope.yaml", expect: [/^flag --config: no config file at .*nope\.yaml$/] },
    { name: "CLAWHIVE_CONFIG naming a missing file", env: { CLAWHIVE_CONFIG: "gone.yaml" }, expect: [/^env CLAWHIVE_CONFIG: no config file at .*gone\.yaml$/] },
    { name: "two files in the cwd", files: { "clawhive.yaml": "", "clawhive.json": "{}" }, expect: [/^config: both clawhive\.yaml and clawhive\.json are in /] },
    { name: "a store URL with an unsupported scheme", env: { CLAWHIVE_STORE_URL: "ftp://db.example.com/x" }, expect: [/^env CLAWHIVE_STORE_URL: scheme ftp: is not supported; use file:<path>/] },
    {
      name: "a store URL carrying credentials never echoes them",
      files: { "clawhive.yaml": "store:\n  url: libsql://user:hunter2@db.example.com\n" },
      expect: [/^config clawhive\.yaml: store\.url: credentials in the URL are refused/],
    },
    { name: "a CORS wildcard", files: { "clawhive.yaml": "server:\n  cors:\n    origins: ['*']\n" }, expect: [/^config clawhive\.yaml: server\.cors\.origins\[0\]: expected an origin like https:\/\/app\.example\.com/] },
    { name: "a CORS origin with a path", env: { CLAWHIVE_CORS_ORIGINS: "https://a.example.com/app" }, expect: [/^env CLAWHIVE_CORS_ORIGINS: expected an origin/] },
    { name: "an unknown mail backend", env: { CLAWHIVE_MAIL_BACKEND: "Gmail" }, expect: ["env CLAWHIVE_MAIL_BACKEND: expected backend maildir or gmail"] },
    { name: "a bad Gmail base URL", env: { CLAWHIVE_MAIL_BACKEND: "gmail", CLAWHIVE_GMAIL_BASE_URL: "not a url" }, expect: [/^env CLAWHIVE_GMAIL_BASE_URL: expected an absolute URL/] },
    { name: "a key of the other calendar backend", files: { "clawhive.yaml": "calendar:\n  backend: ics\n  token_secret: x\n" }, expect: [/^config clawhive\.yaml: calendar\.token_secret: unknown key "token_secret"/] },
    {
      name: "every problem at once: the file's, the environment's and the flags'",
      files: { "clawhive.yaml": "sandbox:\n  workers: 0\n  memory_max_mb: 1\n" },
      env: { CLAWHIVE_CALL_TIMEOUT_MS: "1" },
      flags: { port: "x" },
      expect: [
        "config clawhive.yaml: sandbox.workers: expected an integer 1..64",
        "config clawhive.yaml: sandbox.memory_max_mb: expected an integer 16..4096",
        "env CLAWHIVE_CALL_TIMEOUT_MS: expected an integer 100..3600000",
        "flag --port: expected an integer 0..65535",
      ],
    },
  ];
  for (const row of rows) {
    test(row.name, async () => {
      const cwd = await dir(row.files);
      const lines = await problems(load(cwd, { env: row.env ?? {}, flags: row.flags ?? {}, ...(row.file ? { file: row.file } : {}) }));
      assert.equal(lines.length, row.expect.length, lines.join("\n"));
      row.expect.forEach((expected, i) => (typeof expected === "string" ? assert.equal(lines[i], expected) : assert.match(lines[i]!, expected)));
      assert.ok(!lines.join("\n").includes("hunter2"), "a password never appears in a message");
    });
  }

  test("ConfigError carries each issue with its source and field", async () => {
    const cwd = await dir({ "clawhive.yaml": "server:\n  listen: nope\n" });
    await assert.rejects(load(cwd), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.equal(error.field, "server.listen");
      assert.deepEqual(error.issues[0]?.source, { kind: "file", file: "clawhive.yaml" });
      return true;
    });
  });
});

describe("listening beyond loopback must be explicit", () => {
  const rows: Array<{ listen: string; allowed: boolean }> = [
    { listen: "127.0.0.1:7878", allowed: true },
    { listen: "127.9.9.9:1", allowed: true },
    { listen: "localhost:7878", allowed: true },
    { listen: "[::1]:7878", allowed: true },
    { listen: "0.0.0.0:7878", allowed: false },
    { listen: "[::]:7878", allowed: false },
    { listen: "192.168.1.10:7878", allowed: false },
    { listen: "hive.internal:7878", allowed: false },
    { listen: "[::ffff:127.0.0.1]:7878", allowed: true },
  ];
  for (const row of rows) {
    test(`${row.listen} is ${row.allowed ? "accepted" : "refused"} without allow_non_loopback`, async () => {
      const cwd = await dir({ "clawhive.yaml": `server:\n  listen: "${row.listen}"\n` });
      if (row.allowed) {
        assert.equal((await load(cwd)).server.port, Number(row.listen.split(":").at(-1)));
        return;
      }
      const lines = await problems(load(cwd));
      assert.match(lines[0]!, /^config clawhive\.yaml: server\.listen: .* is not a loopback address: .* set server\.allow_non_loopback: true/);
      // Control: the same address with the switch on.
      const allowed = await load(cwd, { env: { CLAWHIVE_ALLOW_NON_LOOPBACK: "1" } });
      assert.equal(allowed.server.allowNonLoopback, true);
    });
  }

  test("the message names the source that chose the host", async () => {
    const cwd = await dir();
    const lines = await problems(load(cwd, { flags: { host: "0.0.0.0" } }));
    assert.match(lines[0]!, /^flag --host: 0\.0\.0\.0:7878 is not a loopback address/);
  });
});

describe("mail and calendar backends", () => {
  test("the file's backend, with its paths resolved", async () => {
    const cwd = await dir({ "clawhive.yaml": "mail:\n  backend: maildir\n  dir: mail\ncalendar:\n  backend: google\n" });
    const config = await load(cwd);
    assert.deepEqual(config.mail, { backend: "maildir", dir: join(cwd, "mail") });
    assert.deepEqual(config.calendar, { backend: "google", tokenSecret: "google-calendar-token" });
  });

  test("CLAWHIVE_MAIL_BACKEND replaces the file's whole mail section", async () => {
    const cwd = await dir({ "clawhive.yaml": "mail:\n  backend: maildir\n  dir: mail\n" });
    const config = await load(cwd, { env: { CLAWHIVE_MAIL_BACKEND: "gmail", CLAWHIVE_GMAIL_TOKEN_SECRET: "my-token", CLAWHIVE_GMAIL_BASE_URL: "http://127.0.0.1:9/gmail" } });
    assert.deepEqual(config.mail, { backend: "gmail", tokenSecret: "my-token", baseUrl: "http://127.0.0.1:9/gmail" });
    assert.deepEqual(config.sources.mail, { kind: "env", name: "CLAWHIVE_MAIL_BACKEND" });
  });
});
