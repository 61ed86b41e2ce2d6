/**
 * Installing plugins from a real OCI registry (docker-registry on loopback): pinned by digest,
 * signed by a trusted publisher key. Each refusal in the table is beside its control: the same
 * path, the same registry, with the one thing wrong put right, installs.
 */
import assert from "node:assert/strict";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ClawhiveError } from "../../../runtime/errors.js";
import type { InstallSourceOptions } from "../../../runtime/plugins/install/index.js";
import { digestOf } from "../../../runtime/plugins/oci/index.js";
import { generatePublisherKey, parsePrivateKey, signatureText, signPlugin, type PublisherKeyPair } from "../../../runtime/plugins/signing/index.js";
import { Sandbox } from "../../../runtime/sandbox/index.js";
import { echoComponent, writePackage } from "../../helpers/plugin-packages.js";
import { tempDir } from "../../helpers/runtime.js";
import { needsRegistry, RegistryProxy, startRegistry, type Rewrite, type TestRegistry } from "../../helpers/oci-registry.js";
import { place, publish, type Publishable } from "./_setup.js";

const skip = needsRegistry();
let registry: TestRegistry;
let proxy: RegistryProxy;
let sandbox: Sandbox;
let echo: Publishable & { sha256: string };
let publisher: PublisherKeyPair;
let stranger: PublisherKeyPair;
let revoked: PublisherKeyPair;

before(async () => {
  if (skip.skip) return;
  registry = await startRegistry();
  proxy = await RegistryProxy.start(registry.host);
  sandbox = new Sandbox({ workers: 1, poolSize: 0 });
  const built = await echoComponent();
  echo = { component: built.bytes, manifestText: `${JSON.stringify({ ...built.manifest, sha256: built.sha256 }, null, 2)}\n`, sha256: built.sha256 };
  publisher = generatePublisherKey();
  stranger = generatePublisherKey();
  revoked = generatePublisherKey();
});

after(async () => {
  if (skip.skip) return;
  await sandbox.close();
  await proxy.stop();
  await registry.stop();
});

/** A fresh store trusting `publisher` (and `revoked`, revoked) for the echo plugin's publisher. */
async function trustingPlace(secrets?: Record<string, string>) {
  const p = await place(sandbox, secrets === undefined ? {} : { secrets });
  await p.registry.keys.trust({ publicKey: publisher.publicKey, publisher: "clawhive-bench" }, { by: "test" });
  await p.registry.keys.trust({ publicKey: revoked.publicKey, publisher: "clawhive-bench" }, { by: "test" });
  await p.registry.keys.revoke(revoked.keyId, { by: "test" });
  return p;
}

async function refusedCode(work: () => Promise<unknown>): Promise<string> {
  try {
    await work();
  } catch (error) {
    assert.ok(error instanceof ClawhiveError, String(error));
    return error.code;
  }
  assert.fail("expected a refusal");
}

describe("oci:// install", skip, () => {
  test("a tag resolves once to a digest, recorded as the plugin's origin; the digest form installs the same bytes", async () => {
    const pushed = await publish(`oci://${registry.host}/tools/echo:0.1.0`, echo, { key: publisher });
    assert.match(pushed.digest, /^sha256:[0-9a-f]{64}$/);
    for (const source of [`oci://${registry.host}/tools/echo:0.1.0`, `oci://${registry.host}/tools/echo@${pushed.digest}`]) {
      const p = await trustingPlace();
      try {
        const result = await p.installer.install(source);
        assert.equal(result.action, "installed");
        assert.deepEqual(result.signature, { status: "signed", keyId: publisher.keyId, publisher: "clawhive-bench" });
        assert.equal(result.plugin.blobSha256, echo.sha256);
        assert.ok(result.plugin.origin.endsWith(`@${pushed.digest}`), result.plugin.origin);
        assert.equal(p.events.at(-1)?.reason, "installed");
      } finally {
        await p.close();
      }
    }
  });

  interface Arranged {
    source: string;
    options?: InstallSourceOptions;
    control: string;
    controlOptions?: InstallSourceOptions;
    /** The control acknowledges the refusal (--allow-unsigned). */
    ack?: boolean;
    rewrite?: Rewrite;
    cleanup?: () => Promise<void>;
  }
  // Each row: how the artifact is made wrong (or the registry misbehaves), the refusal, and the
  // same install made right (the control), which must install.
  interface Row {
    name: string;
    code: string;
    /** Publishes (or arranges) and returns the source to install and the options; `control` the one that passes. */
    arrange: (tag: string) => Promise<Arranged>;
  }
  const signedAt = async (tag: string) => {
    await publish(`oci://${registry.host}/tools/echo:${tag}`, echo, { key: publisher });
    return `oci://${registry.host}/tools/echo:${tag}`;
  };
  const rows: Row[] = [
    {
      name: "a tampered artifact: the component blob's bytes changed in the registry's storage",
      code: "blob_tampered",
      arrange: async (tag) => {
        const control = await signedAt(`${tag}-ok`);
        // Blob storage is shared by every repository, so the blob changed is one of its own: a
        // component one byte away from echo's, whose stored file then has a byte changed.
        const other = new Uint8Array(echo.component);
        other[other.length - 1] = other[other.length - 1]! ^ 0xff;
        await publish(`oci://${registry.host}/tampered/echo:${tag}`, { ...echo, component: other }, { key: publisher });
        const hex = digestOf(other).slice("sha256:".length);
        const file = join(registry.storage, "docker/registry/v2/blobs/sha256", hex.slice(0, 2), hex, "data");
        const stored = await readFile(file);
        stored[0] = stored[0]! ^ 0x01;
        await writeFile(file, stored);
        return { source: `oci://${registry.host}/tampered/echo:${tag}`, control };
      },
    },
    {
      name: "a wrong signature: the trusted key's id over another key's signature",
      code: "signature_invalid",
      arrange: async (tag) => {
        const control = await signedAt(`${tag}-ok`);
        const forged = JSON.parse(signatureTextOf(echo, stranger)) as Record<string, string>;
        forged.key_id = publisher.keyId;
        await publish(`oci://${registry.host}/tools/echo:${tag}`, echo, { signature: `${JSON.stringify(forged)}\n` });
        return { source: `oci://${registry.host}/tools/echo:${tag}`, control };
      },
    },
    {
      name: "a key not trusted",
      code: "key_untrusted",
      arrange: async (tag) => {
        await publish(`oci://${registry.host}/tools/echo:${tag}`, echo, { key: stranger });
        return { source: `oci://${registry.host}/tools/echo:${tag}`, control: await signedAt(`${tag}-ok`) };
      },
    },
    {
      name: "a revoked key",
      code: "key_revoked",
      arrange: async (tag) => {
        await publish(`oci://${registry.host}/tools/echo:${tag}`, echo, { key: revoked });
        return { source: `oci://${registry.host}/tools/echo:${tag}`, control: await signedAt(`${tag}-ok`) };
      },
    },
    {
      name: "an unsigned artifact",
      code: "plugin_unsigned",
      arrange: async (tag) => {
        await publish(`oci://${registry.host}/tools/echo:${tag}`, echo);
        return { source: `oci://${registry.host}/tools/echo:${tag}`, control: `oci://${registry.host}/tools/echo:${tag}`, ack: true };
      },
    },
    {
      name: "a registry that serves another manifest than the digest asked for",
      code: "registry_digest_mismatch",
      arrange: async (tag) => {
        const good = await publish(`oci://${registry.host}/tools/echo:${tag}`, echo, { key: publisher });
        const other = await publish(`oci://${registry.host}/tools/echo:${tag}-other`, { ...echo, manifestText: echo.manifestText.replace("\n}", ',\n  "homepage": "x"\n}') }, { key: publisher });
        const swap: Rewrite = async (request, response) => {
          if (request.method !== "GET" || !request.path.endsWith(`/manifests/${good.digest}`)) return response;
          const served = await fetch(`http://${registry.host}/v2/tools/echo/manifests/${other.digest}`, { headers: { accept: "application/vnd.oci.image.manifest.v1+json" } });
          return { ...response, headers: { ...response.headers, "docker-content-digest": good.digest }, body: Buffer.from(await served.arrayBuffer()) };
        };
        return { source: `oci://${proxy.host}/tools/echo@${good.digest}`, control: `oci://${proxy.host}/tools/echo@${good.digest}`, rewrite: swap };
      },
    },
    {
      name: "a registry whose digest header lies about the manifest a tag served",
      code: "registry_digest_mismatch",
      arrange: async (tag) => {
        await publish(`oci://${registry.host}/tools/echo:${tag}`, echo, { key: publisher });
        const lie: Rewrite = (request, response) =>
          request.path.endsWith(`/manifests/${tag}`) ? { ...response, headers: { ...response.headers, "docker-content-digest": `sha256:${"0".repeat(64)}` } } : response;
        return { source: `oci://${proxy.host}/tools/echo:${tag}`, control: `oci://${proxy.host}/tools/echo:${tag}`, rewrite: lie };
      },
    },
    {
      name: "a plugin manifest that lies about the component's sha256",
      code: "blob_tampered",
      arrange: async (tag) => {
        const lying = { ...echo, manifestText: echo.manifestText.replace(echo.sha256, "ab".repeat(32)) };
        await publish(`oci://${registry.host}/tools/echo:${tag}`, lying, { key: publisher });
        return { source: `oci://${registry.host}/tools/echo:${tag}`, control: await signedAt(`${tag}-ok`) };
      },
    },
    {
      name: "an oversized blob (a component larger than the cap)",
      code: "blob_too_large",
      arrange: async (tag) => {
        const source = await signedAt(tag);
        return { source, options: { registry: { maxComponentBytes: echo.component.byteLength - 1 } }, control: source, controlOptions: { registry: { maxComponentBytes: echo.component.byteLength } } };
      },
    },
    {
      name: "a registry that hangs",
      code: "registry_timeout",
      arrange: async (tag) => {
        await signedAt(tag);
        const hang: Rewrite = (request, response) => (request.path.includes("/blobs/") ? "hang" : response);
        return { source: `oci://${proxy.host}/tools/echo:${tag}`, options: { registry: { idleTimeoutMs: 300 } }, control: `oci://${proxy.host}/tools/echo:${tag}`, rewrite: hang };
      },
    },
    {
      name: "a registry that wants basic auth, asked without credentials",
      code: "registry_unauthorized",
      arrange: async (tag) => {
        await signedAt(tag);
        proxy.basic = "alice:s3cret-pass";
        return { source: `oci://${proxy.host}/tools/echo:${tag}`, control: `oci://${proxy.host}/tools/echo:${tag}`, controlOptions: { registrySecret: "registry_login" }, cleanup: async () => { proxy.basic = undefined; } };
      },
    },
  ];

  for (const [index, row] of rows.entries()) {
    test(`refused: ${row.name} (${row.code}); its control installs`, async () => {
      const tag = `case-${index}`;
      const arranged = await row.arrange(tag);
      const p = await trustingPlace({ registry_login: "alice:s3cret-pass" });
      try {
        proxy.rewrite = arranged.rewrite;
        assert.equal(await refusedCode(() => p.installer.install(arranged.source, arranged.options ?? {})), row.code);
        assert.equal(await p.registry.get("bench-echo"), undefined, "nothing installed");
        const refusal = p.events.at(-1);
        assert.equal(refusal?.decision, "deny");
        assert.equal(refusal?.reason, row.code);
        // The control: the rewrite gone (the registry behaves), or the one thing put right.
        proxy.rewrite = undefined;
        const result = await p.installer.install(arranged.control, { ...(arranged.controlOptions ?? {}), ...(arranged.ack ? { allowUnsigned: true } : {}) });
        assert.equal(result.action, "installed");
        assert.equal(result.plugin.blobSha256, echo.sha256);
      } finally {
        proxy.rewrite = undefined;
        await arranged.cleanup?.();
        await p.close();
      }
    });
  }

  test("--allow-unsigned installs a wrongly signed plugin, and the install's audit record names what was acknowledged", async () => {
    await publish(`oci://${registry.host}/tools/echo:ack`, echo, { key: stranger });
    const p = await trustingPlace();
    try {
      const result = await p.installer.install(`oci://${registry.host}/tools/echo:ack`, { allowUnsigned: true });
      assert.equal(result.signature?.status, "acknowledged");
      const record = p.events.at(-1)!;
      assert.equal(record.decision, "allow");
      assert.equal(record.reason, "installed, acknowledged key_untrusted");
    } finally {
      await p.close();
    }
  });

  test("a local package folder carries plugin.sig: verified when present, and required once its publisher has a trusted key", async () => {
    const root = await tempDir("clawhive-oci-local-");
    const manifest = JSON.parse(echo.manifestText) as Record<string, unknown>;
    const unsigned = await writePackage(root, "unsigned", manifest, echo.component);
    await writeFile(join(unsigned, "plugin.json"), echo.manifestText);
    const signed = await writePackage(root, "signed", manifest, echo.component);
    await writeFile(join(signed, "plugin.json"), echo.manifestText);
    await writeFile(join(signed, "plugin.sig"), signatureTextOf(echo, publisher));
    const wrong = await writePackage(root, "wrong", manifest, echo.component);
    await writeFile(join(wrong, "plugin.json"), echo.manifestText);
    await writeFile(join(wrong, "plugin.sig"), signatureTextOf(echo, stranger));
    assert.deepEqual((await readdir(signed)).sort(), ["plugin.json", "plugin.sig", "plugin.wasm"]);
    const fresh = await place(sandbox);
    try {
      assert.equal((await fresh.installer.install(unsigned)).signature?.status, "unsigned", "no key trusted for the publisher: a local package installs unsigned");
    } finally {
      await fresh.close();
    }
    const p = await trustingPlace();
    try {
      assert.equal(await refusedCode(() => p.installer.install(unsigned)), "plugin_unsigned");
      assert.equal(await refusedCode(() => p.installer.install(wrong)), "key_untrusted");
      assert.equal((await p.installer.install(signed)).signature?.status, "signed");
    } finally {
      await p.close();
    }
  });
});

function signatureTextOf(plugin: Publishable & { sha256: string }, key: PublisherKeyPair): string {
  return signatureText(signWith(plugin, key));
}

function signWith(plugin: Publishable & { sha256: string }, key: PublisherKeyPair) {
  return signPlugin({ manifestText: plugin.manifestText, componentSha256: plugin.sha256 }, parsePrivateKey(key.privateKeyPem, "key"));
}
