import * as v from "valibot";
import { PluginError } from "../../errors.js";
import { digestOf } from "./transport.js";

// The layout is the CNCF TAG Runtime's Wasm OCI artifact (the one `wkg`, Wassette and
// oci-wasm read: config application/vnd.wasm.config.v0+json, the component as an
// application/wasm layer), with clawhive's plugin manifest and signature as two more layers.
// A tool that knows only the Wasm layout still finds the component; clawhive needs all three.
export const OCI_MANIFEST_TYPE = "application/vnd.oci.image.manifest.v1+json";
export const WASM_CONFIG_TYPE = "application/vnd.wasm.config.v0+json";
export const WASM_LAYER_TYPE = "application/wasm";
export const PLUGIN_MANIFEST_TYPE = "application/vnd.clawhive.plugin.manifest.v1+json";
export const PLUGIN_SIGNATURE_TYPE = "application/vnd.clawhive.plugin.signature.v1+json";
export const PLUGIN_ARTIFACT_TYPE = "application/vnd.clawhive.plugin.v1";

/** Largest OCI manifest read (the spec suggests registries accept 4 MiB; ours are under 2 KiB). */
export const MAX_OCI_MANIFEST_BYTES = 256 << 10;
export const MAX_CONFIG_BYTES = 64 << 10;

const DIGEST = v.pipe(v.string(), v.regex(/^sha256:[0-9a-f]{64}$/, "expected sha256: and 64 lowercase hex digits"));
const Descriptor = v.object({
  mediaType: v.pipe(v.string(), v.maxLength(255)),
  digest: DIGEST,
  size: v.pipe(v.number(), v.integer(), v.minValue(0)),
});
export type OciDescriptor = v.InferOutput<typeof Descriptor>;

const ImageManifest = v.object({
  schemaVersion: v.literal(2),
  mediaType: v.optional(v.string()),
  artifactType: v.optional(v.string()),
  config: Descriptor,
  layers: v.pipe(v.array(Descriptor), v.maxLength(16, "at most 16 layers")),
  annotations: v.optional(v.record(v.string(), v.string())),
});

export interface PluginLayers {
  component: OciDescriptor;
  manifest: OciDescriptor;
  signature?: OciDescriptor;
}

/** The layers of a plugin artifact, from the OCI manifest's bytes; anything else is refused by name. */
export function pluginLayers(bytes: Uint8Array, origin: string): PluginLayers {
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(bytes).toString("utf8"));
  } catch {
    throw new PluginError("artifact_invalid", `${origin}: the OCI manifest is not JSON`);
  }
  const parsed = v.safeParse(ImageManifest, json);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    throw new PluginError("artifact_invalid", `${origin}: not an OCI image manifest: ${issue.path?.map((p) => String(p.key)).join(".") ?? ""}: ${issue.message}`);
  }
  const manifest = parsed.output;
  if (manifest.mediaType !== undefined && manifest.mediaType !== OCI_MANIFEST_TYPE) {
    throw new PluginError("artifact_invalid", `${origin}: mediaType ${manifest.mediaType}; a plugin is an ${OCI_MANIFEST_TYPE} (an index or a Docker image is not a plugin)`);
  }
  const one = (type: string, required: boolean): OciDescriptor | undefined => {
    const found = manifest.layers.filter((l) => l.mediaType === type);
    if (found.length > 1) throw new PluginError("artifact_invalid", `${origin}: ${found.length} layers of type ${type}; a plugin has one`);
    if (found.length === 0 && required) throw new PluginError("artifact_invalid", `${origin}: no ${type} layer; a clawhive plugin artifact holds the component (${WASM_LAYER_TYPE}) and its plugin manifest (${PLUGIN_MANIFEST_TYPE}) — see docs/distribution.md`);
    return found[0];
  };
  const component = one(WASM_LAYER_TYPE, true)!;
  const pluginManifest = one(PLUGIN_MANIFEST_TYPE, true)!;
  const signature = one(PLUGIN_SIGNATURE_TYPE, false);
  return { component, manifest: pluginManifest, ...(signature === undefined ? {} : { signature }) };
}

export interface ArtifactBlob {
  descriptor: OciDescriptor;
  bytes: Uint8Array;
}

/** The blobs and OCI manifest of a plugin artifact. */
export function pluginArtifact(input: { component: Uint8Array; manifestText: string; signatureText?: string; format: "component" | "extism"; name: string; version: string }): { blobs: ArtifactBlob[]; manifest: Uint8Array } {
  const blob = (mediaType: string, bytes: Uint8Array): ArtifactBlob => ({ descriptor: { mediaType, digest: digestOf(bytes), size: bytes.byteLength }, bytes });
  const component = blob(WASM_LAYER_TYPE, input.component);
  const layers = [component, blob(PLUGIN_MANIFEST_TYPE, Buffer.from(input.manifestText, "utf8"))];
  if (input.signatureText !== undefined) layers.push(blob(PLUGIN_SIGNATURE_TYPE, Buffer.from(input.signatureText, "utf8")));
  // The Wasm OCI config: what wkg and Wassette read (wasip2 for a component, wasip1 for a core module).
  const config = blob(WASM_CONFIG_TYPE, Buffer.from(JSON.stringify({ architecture: "wasm", os: input.format === "component" ? "wasip2" : "wasip1", layerDigests: [component.descriptor.digest] })));
  const manifest = {
    schemaVersion: 2,
    mediaType: OCI_MANIFEST_TYPE,
    artifactType: PLUGIN_ARTIFACT_TYPE,
    config: config.descriptor,
    layers: layers.map((l) => l.descriptor),
    annotations: { "org.opencontainers.image.title": input.name, "org.opencontainers.image.version": input.version },
  };
  return { blobs: [config, ...layers], manifest: Buffer.from(JSON.stringify(manifest), "utf8") };
}
