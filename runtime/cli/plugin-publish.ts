/** `clawhive plugin publish`: a plugin package pushed to an OCI registry, signed by the publisher's key. */
import { readFile } from "node:fs/promises";
import { InvalidInputError } from "../errors.js";
import { readPackage } from "../plugins/install/index.js";
import { defaultBuildCacheDir } from "../plugins/locations.js";
import { parseOciReference, pushPlugin } from "../plugins/oci/index.js";
import { parsePrivateKey, signatureText, signPlugin } from "../plugins/signing/index.js";
import { parseCommandArgs } from "./args.js";
import { jsonOut } from "./render.js";

export const pluginPublishHelp = `clawhive plugin publish — push a plugin to an OCI registry

  clawhive plugin publish FILE|DIR oci://REGISTRY/NAME:TAG [--key FILE] [--manifest FILE] [--plain-http] [--json]

  FILE|DIR is what 'plugin install' reads: a package folder (plugin.json, plugin.wasm, maybe
  plugin.sig), a plugin source folder (built first), a .tgz, or a .wasm with --manifest.
  It is pushed as an OCI artifact (docs/distribution.md): the component as an application/wasm
  layer (the Wasm OCI layout other tools read), plugin.json, and the signature.

  --key FILE      the publisher's private key ('clawhive keys generate'): signs plugin.json and
                  the component's digest. Without it a plugin.sig the package holds is pushed
                  as it is; an unsigned plugin installs only with --allow-unsigned.
  --plain-http    a registry not on loopback over plain http (loopback always is)
  CLAWHIVE_REGISTRY_AUTH=username:password   basic credentials for the registry (or a token
                  service it names); none: anonymous

  Prints the digest the tag now names; install by it to pin exactly these bytes:
    clawhive plugin install oci://REGISTRY/NAME@sha256:…

  Exit codes: 0 pushed; 1 the registry is unreachable or refused; 2 bad usage or package.`;

export async function pluginPublishCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { key: { type: "string" }, manifest: { type: "string" }, "plain-http": { type: "boolean" }, json: { type: "boolean" } });
  const [source, target, ...extra] = positionals;
  if (!source || !target || extra.length > 0) throw new InvalidInputError("usage: clawhive plugin publish FILE|DIR oci://REGISTRY/NAME:TAG [--key FILE]", { field: "source" });
  const ref = parseOciReference(target, "target");
  if (ref.tag === undefined || ref.digest !== undefined) throw new InvalidInputError("target: publish names a tag, oci://REGISTRY/NAME:TAG (the registry answers its digest)", { field: "target" });
  const pkg = await readPackage(source, {
    cacheDir: defaultBuildCacheDir(),
    ...(typeof values.manifest === "string" ? { manifestFile: values.manifest } : {}),
    onProgress: (line) => console.error(line),
  });
  let signature = pkg.signature === undefined ? undefined : Buffer.from(pkg.signature).toString("utf8");
  let signedBy: string | undefined;
  if (typeof values.key === "string") {
    const key = parsePrivateKey(await readFile(values.key, "utf8").catch(() => {
      throw new InvalidInputError(`--key ${values.key}: no such file`, { field: "key" });
    }), `--key ${values.key}`);
    const signed = signPlugin({ manifestText: pkg.manifestText, componentSha256: pkg.sha256 }, key);
    signature = signatureText(signed);
    signedBy = signed.key_id;
  }
  const auth = process.env.CLAWHIVE_REGISTRY_AUTH;
  const result = await pushPlugin(ref, { component: pkg.bytes, manifestText: pkg.manifestText, ...(signature === undefined ? {} : { signatureText: signature }), format: pkg.manifest.format, name: pkg.manifest.name, version: pkg.manifest.version }, {
    ...(auth === undefined || auth === "" ? {} : { credentials: auth }),
    ...(values["plain-http"] === true ? { plainHttp: true } : {}),
  });
  const pinned = result.pinned.replace(`:${ref.tag}@`, "@");
  if (values.json === true) {
    console.log(jsonOut({ name: pkg.manifest.name, version: pkg.manifest.version, reference: result.pinned, digest: result.digest, signed: signature !== undefined, ...(signedBy === undefined ? {} : { key_id: signedBy }), uploaded: result.uploaded, existing: result.existing }));
    return 0;
  }
  console.log(`published ${pkg.manifest.name}@${pkg.manifest.version} to ${target}`);
  console.log(`  digest: ${result.digest}`);
  console.log(`  blobs: ${result.uploaded} uploaded, ${result.existing} already in the registry`);
  console.log(signature === undefined ? "  NOT SIGNED: installs only with --allow-unsigned" : `  signed${signedBy === undefined ? " (the package's plugin.sig)" : ` by key ${signedBy}`}`);
  console.log(`  install: clawhive plugin install ${pinned}`);
  return 0;
}
