import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { access, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { PluginEventInput } from "../../../runtime/audit/index.js";
import { sha256 } from "../../../runtime/plugins/artifact.js";
import { PluginInstaller, pluginMigrations, PluginRegistry, type InstalledPlugin } from "../../../runtime/plugins/install/index.js";
import { canonicalText, CodeSeal } from "../../../runtime/plugins/seal.js";
import { Sandbox } from "../../../runtime/sandbox/index.js";
import { applyMigrations, openStore, systemClock, type Store } from "../../../runtime/store/index.js";
import { echoComponent, writePackage } from "../../helpers/plugin-packages.js";
import { tempDir } from "../../helpers/runtime.js";

// The build cache is a folder; what it holds is executed. Each row rewrites part of a cached
// build the way someone with write access to the folder could, then loads the plugin in a
// fresh sandbox (as a restarted runtime would): the rewritten code never runs, the refusal is
// one `plugin` audit record, and the plugin works from a build made again from the store's blob.

const KEY = randomBytes(32);
const SEAL_ID = "00112233aabbccdd";
let root: string;
let cache: string;
let marker: string;
let store: Store;
let installed: InstalledPlugin;
let events: PluginEventInput[];
let installer: PluginInstaller;
let installSandbox: Sandbox;

before(async () => {
  root = await tempDir("clawhive-trust-");
  cache = join(root, "cache");
  marker = join(root, "foreign-code-ran");
  store = await openStore({ url: `file:${join(root, "s.db")}` });
  await applyMigrations(store, pluginMigrations, { clock: systemClock });
  events = [];
  installSandbox = new Sandbox({ workers: 1, poolSize: 0 });
  installer = new PluginInstaller({
    registry: new PluginRegistry(store, { clock: systemClock }),
    sandbox: installSandbox,
    cacheDir: cache,
    seal: CodeSeal.fromKey(KEY, SEAL_ID),
    audit: async (event) => void events.push(event),
  });
  const echo = await echoComponent();
  await installer.install(await writePackage(root, "echo", echo.manifest, echo.bytes), { by: "cli:test" });
  installed = (await installer.registry.get("bench-echo"))!;
});

after(async () => {
  await installSandbox.close();
  await store.close();
  await rm(root, { recursive: true, force: true });
});

async function buildDir(): Promise<string> {
  const [name] = (await readdir(join(cache, "compiled"))).filter((n) => !n.endsWith(".tmp"));
  return join(cache, "compiled", name!);
}

/** Glue that, if it ever ran, would leave a file behind (the worker has `process`). */
async function foreignGlue(dir: string): Promise<string> {
  const glue = await readFile(join(dir, "plugin.js"), "utf8");
  return `process.getBuiltinModule("node:fs").writeFileSync(${JSON.stringify(marker)}, "ran");\n${glue}`;
}

async function rewriteRecord(dir: string, change: (record: { files: Record<string, string> }) => void): Promise<string> {
  const record = JSON.parse(await readFile(join(dir, "artifact.json"), "utf8")) as { files: Record<string, string> };
  change(record);
  await writeFile(join(dir, "artifact.json"), JSON.stringify(record, null, 2));
  return canonicalText(record);
}

const exists = (file: string) => access(file).then(() => true, () => false);

interface Row {
  name: string;
  tamper: (dir: string) => Promise<void>;
  /** The refusal's audited reason; none for a control. */
  refused?: string;
}

const rows: Row[] = [
  { name: "control: an untouched build is used as it is", tamper: async () => {} },
  {
    name: "the glue rewritten, its record left alone",
    tamper: async (dir) => writeFile(join(dir, "plugin.js"), await foreignGlue(dir)),
    refused: "artifact_tampered",
  },
  {
    name: "the glue and its record rewritten to match each other",
    tamper: async (dir) => {
      const glue = await foreignGlue(dir);
      await writeFile(join(dir, "plugin.js"), glue);
      await rewriteRecord(dir, (r) => (r.files["plugin.js"] = sha256(glue)));
    },
    refused: "artifact_tampered",
  },
  {
    name: "the glue and its record rewritten, the seal deleted",
    tamper: async (dir) => {
      const glue = await foreignGlue(dir);
      await writeFile(join(dir, "plugin.js"), glue);
      await rewriteRecord(dir, (r) => (r.files["plugin.js"] = sha256(glue)));
      await rm(join(dir, `seal-${SEAL_ID}`));
    },
    refused: "artifact_tampered",
  },
  {
    name: "a core module and its record rewritten",
    tamper: async (dir) => {
      const name = (await readdir(dir)).find((n) => n.endsWith(".core.wasm"))!;
      const bytes = await readFile(join(dir, name));
      bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 0xff;
      await writeFile(join(dir, name), bytes);
      await rewriteRecord(dir, (r) => (r.files[name] = sha256(bytes)));
    },
    refused: "artifact_tampered",
  },
  {
    name: "the record made unreadable",
    tamper: async (dir) => writeFile(join(dir, "artifact.json"), "{"),
    refused: "artifact_invalid",
  },
];

describe("a cached build is trusted only under this node's seal", () => {
  for (const row of rows) {
    it(row.name, async () => {
      await rm(marker, { force: true });
      const dir = await buildDir();
      const original = await readFile(join(dir, "plugin.js"), "utf8");
      await row.tamper(dir);
      events.length = 0;
      const sandbox = new Sandbox({ workers: 1, poolSize: 0 });
      try {
        const { plugin } = await installer.load(installed, sandbox);
        // Instantiating runs the glue's top level in a worker: the plugin works, nothing foreign ran.
        const tools = await sandbox.describe(plugin);
        assert.ok(tools.some((t) => t.name === "echo"));
        assert.equal(plugin.glue, original);
        assert.equal(await exists(marker), false, "the rewritten glue ran");
        const refusals = events.filter((e) => e.decision === "deny");
        if (row.refused === undefined) assert.deepEqual(refusals, []);
        else {
          assert.equal(refusals.length, 1, JSON.stringify(refusals));
          assert.deepEqual({ ...refusals[0], message: undefined }, { action: "load", decision: "deny", name: "bench-echo", version: installed.version, sha256: installed.blobSha256, publisher: installed.publisher, by: "runtime", reason: row.refused, message: undefined });
        }
        // The build was made again from the blob: the next load uses it with no refusal.
        events.length = 0;
        const again = new Sandbox({ workers: 0 });
        await installer.load(installed, again).finally(() => again.close());
        assert.deepEqual(events, []);
      } finally {
        await sandbox.close();
      }
    });
  }

  it("control for the table: the same rewrite sealed with the node's key does run (so the rows above can fail)", async () => {
    await rm(marker, { force: true });
    const dir = await buildDir();
    const glue = await foreignGlue(dir);
    await writeFile(join(dir, "plugin.js"), glue);
    const text = await rewriteRecord(dir, (r) => (r.files["plugin.js"] = sha256(glue)));
    await writeFile(join(dir, `seal-${SEAL_ID}`), `${CodeSeal.fromKey(KEY, SEAL_ID).mac("clawhive compiled plugin v1", text)}\n`);
    const sandbox = new Sandbox({ workers: 1, poolSize: 0 });
    try {
      await sandbox.describe((await installer.load(installed, sandbox)).plugin);
      assert.equal(await exists(marker), true);
    } finally {
      await sandbox.close();
      // Put the real build back for whatever runs next.
      await rm(dir, { recursive: true, force: true });
    }
  });
});
