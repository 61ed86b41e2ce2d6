import { PluginError } from "../../errors.js";
import { OCI_MANIFEST_TYPE, pluginArtifact, type ArtifactBlob } from "./layout.js";
import { formatOciReference, type OciReference } from "./reference.js";
import { digestOf, registryErrorText, RegistryTransport, type RegistryOptions } from "./transport.js";

export interface PushInput {
  component: Uint8Array;
  manifestText: string;
  signatureText?: string;
  format: "component" | "extism";
  name: string;
  version: string;
}

export interface PushResult {
  digest: string;
  /** `oci://REGISTRY/NAME:TAG@DIGEST`. */
  pinned: string;
  /** Blobs sent, and blobs the registry had already. */
  uploaded: number;
  existing: number;
}

const SMALL = 64 << 10;

/**
 * Pushes a plugin artifact (layout.ts) to a registry under `ref.tag`: each blob the registry
 * lacks in one monolithic upload (POST a session, PUT its location with the digest), then the
 * manifest. The digest the registry answers must be the manifest's own.
 */
export async function pushPlugin(ref: OciReference, input: PushInput, options: RegistryOptions & { onProgress?: (line: string) => void } = {}): Promise<PushResult> {
  if (ref.tag === undefined || ref.digest !== undefined) throw new PluginError("registry_invalid", `${formatOciReference(ref)}: publish names a tag (oci://REGISTRY/NAME:TAG), not a digest`);
  const transport = new RegistryTransport(ref.registry, options);
  const artifact = pluginArtifact(input);
  const where = formatOciReference(ref);
  let uploaded = 0;
  let existing = 0;
  for (const blob of artifact.blobs) {
    if (await pushBlob(transport, ref.repository, blob, where)) uploaded++;
    else existing++;
  }
  const digest = digestOf(artifact.manifest);
  const response = await transport.request("PUT", `/v2/${ref.repository}/manifests/${ref.tag}`, { headers: { "content-type": OCI_MANIFEST_TYPE }, body: artifact.manifest, maxBytes: SMALL, what: "the manifest" });
  if (response.status !== 201 && response.status !== 200) throw new PluginError("registry_failed", `${where}: the manifest was refused: ${registryErrorText(response)}`);
  const said = response.headers.get("docker-content-digest");
  if (said !== null && said !== digest) throw new PluginError("registry_digest_mismatch", `${where}: the registry recorded the manifest as ${said}, not ${digest}`);
  options.onProgress?.(`pushed ${where}: ${uploaded} blob(s) uploaded, ${existing} already there`);
  return { digest, pinned: formatOciReference({ ...ref, digest }), uploaded, existing };
}

/** Uploads one blob unless the registry has it; true when it was sent. */
async function pushBlob(transport: RegistryTransport, repository: string, blob: ArtifactBlob, where: string): Promise<boolean> {
  const { digest } = blob.descriptor;
  const head = await transport.request("HEAD", `/v2/${repository}/blobs/${digest}`, { maxBytes: 0, what: `blob ${digest}` });
  if (head.status === 200) return false;
  const start = await transport.request("POST", `/v2/${repository}/blobs/uploads/`, { maxBytes: SMALL, what: "an upload session" });
  const location = start.headers.get("location");
  if (start.status !== 202 || location === null) throw new PluginError("registry_failed", `${where}: no upload session: ${registryErrorText(start)}`);
  const url = new URL(transport.resolve(location));
  url.searchParams.set("digest", digest);
  const put = await transport.requestUrl("PUT", url.href, { headers: { "content-type": "application/octet-stream" }, body: blob.bytes, maxBytes: SMALL, what: `blob ${digest}` });
  if (put.status !== 201) throw new PluginError("registry_failed", `${where}: blob ${digest} (${blob.descriptor.mediaType}) was refused: ${registryErrorText(put)}`);
  return true;
}
