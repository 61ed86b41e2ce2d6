import { isIP } from "node:net";
import { InvalidInputError } from "../../errors.js";

/** A plugin in an OCI registry: `oci://REGISTRY/NAME:TAG` or `oci://REGISTRY/NAME@sha256:HEX` (or both: the digest wins). */
export interface OciReference {
  /** host[:port], as written. */
  registry: string;
  /** The repository (`tools/echo`). */
  repository: string;
  tag?: string;
  /** `sha256:<64 hex>`. */
  digest?: string;
}

// The distribution spec's grammar (distribution-spec, "Pulling manifests"): path components of
// lower-case alphanumerics joined by ., _, __ or -; tags up to 128 characters.
const COMPONENT = /^[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*$/;
const TAG = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;
const DIGEST = /^sha256:[0-9a-f]{64}$/;
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?)(?::[0-9]{1,5})?$/;

export function isOciSource(source: string): boolean {
  return typeof source === "string" && source.toLowerCase().startsWith("oci://");
}

export function parseOciReference(text: string, field = "source"): OciReference {
  const bad = (why: string) => new InvalidInputError(`${field}: ${why}; expected oci://REGISTRY/NAME:TAG or oci://REGISTRY/NAME@sha256:HEX`, { field });
  if (!isOciSource(text) || text.length > 1024) throw bad("not an oci:// reference");
  const rest = text.slice("oci://".length);
  const slash = rest.indexOf("/");
  if (slash <= 0) throw bad("no registry host");
  const registry = rest.slice(0, slash);
  if (!HOST.test(registry)) throw bad(`registry ${JSON.stringify(registry)} is not a host[:port]`);
  let path = rest.slice(slash + 1);
  let digest: string | undefined;
  let tag: string | undefined;
  const at = path.indexOf("@");
  if (at >= 0) {
    digest = path.slice(at + 1);
    path = path.slice(0, at);
    if (!DIGEST.test(digest)) throw bad("the digest is not sha256: and 64 lowercase hex digits");
  }
  const colon = path.lastIndexOf(":");
  if (colon >= 0) {
    tag = path.slice(colon + 1);
    path = path.slice(0, colon);
    if (!TAG.test(tag)) throw bad(`tag ${JSON.stringify(tag)} is not a valid tag`);
  }
  if (path === "" || !path.split("/").every((c) => COMPONENT.test(c)) || path.length > 255) throw bad(`repository ${JSON.stringify(path)} is not a valid name (lower case, / between parts)`);
  if (tag === undefined && digest === undefined) throw bad("no tag or digest");
  return { registry, repository: path, ...(tag === undefined ? {} : { tag }), ...(digest === undefined ? {} : { digest }) };
}

/** `oci://REGISTRY/NAME[:TAG][@DIGEST]`. */
export function formatOciReference(ref: OciReference): string {
  return `oci://${ref.registry}/${ref.repository}${ref.tag === undefined ? "" : `:${ref.tag}`}${ref.digest === undefined ? "" : `@${ref.digest}`}`;
}

/** Whether the registry host is this machine (127.0.0.0/8, ::1, localhost): only there is plain http used by default. */
export function isLoopbackRegistry(registry: string): boolean {
  const host = registry.startsWith("[") ? registry.slice(1, registry.indexOf("]")) : registry.replace(/:[0-9]+$/, "");
  if (host.toLowerCase() === "localhost") return true;
  if (isIP(host) === 4) return host.startsWith("127.");
  if (isIP(host) === 6) return host === "::1" || host === "0:0:0:0:0:0:0:1";
  return false;
}
