/**
 * Grant credentials: a stored secret the host adds as a header for one exact host. The plugin
 * never holds the value; it only sees the response, which is redacted (redact.ts).
 *
 * Rules, and why:
 * - Exact host only (the grant schema forbids patterns): a credential must not reach a
 *   subdomain nobody named.
 * - Only on hops whose origin (scheme, host, port; RFC 6454) is the first request's, and only
 *   until the chain first leaves that origin: a redirect elsewhere never carries it, and
 *   never picks up another host's credential either — that host's server did not choose the
 *   plugin's request, the redirecting server did (Fetch standard drops Authorization on a
 *   cross-origin redirect; CVE-2022-0235, CVE-2023-28155).
 * - Never over plain http except to a loopback address: on the wire it would be readable by
 *   every hop between here and the server (RFC 6750 §5.3: bearer tokens need TLS).
 */
import type { HttpCredential, HttpResource } from "./resource.js";
import { HostProxyError } from "../types.js";
import { isLoopback } from "./address.js";
import { HTTP_DENIAL_REASONS, httpDenied } from "./reasons.js";
import type { PinnedAddresses } from "./resolve.js";
import type { HttpHeader } from "./types.js";

/** Name → secret value, on the main thread only. */
export type SecretResolver = (name: string) => Promise<string>;

const MAX_SECRET_LENGTH = 8192;
// Same field-value rule as request headers (headers.ts): a secret with CR LF would inject.
const FIELD_VALUE = /^[\x21-\x7e][\x20-\x7e]*$/;

export function credentialsFor(grant: HttpResource, host: string): HttpCredential[] {
  return grant.credentials.filter((c) => c.host === host);
}

export interface CredentialHeaders {
  headers: HttpHeader[];
  /** The secret values sent, for redaction. */
  secrets: string[];
}

export interface AttachOptions {
  scheme: "http" | "https";
  pinned: PinnedAddresses;
  resolveSecret: SecretResolver | undefined;
}

/** The headers `credentials` set; throws `credential-over-plain-http` or `io`. */
export async function credentialHeaders(credentials: readonly HttpCredential[], options: AttachOptions): Promise<CredentialHeaders> {
  if (credentials.length === 0) return { headers: [], secrets: [] };
  const host = options.pinned.host;
  if (options.scheme === "http" && !options.pinned.addresses.every(isLoopback)) {
    throw httpDenied(
      HTTP_DENIAL_REASONS.credentialOverPlainHttp,
      `http://${host}: the grant attaches a credential to ${host}, which is never sent over plain http except to a loopback address; use https`,
    );
  }
  const headers: HttpHeader[] = [];
  const secrets: string[] = [];
  for (const credential of credentials) {
    const secret = await readSecret(credential, options.resolveSecret);
    const scheme = credential.scheme ?? "Bearer";
    headers.push({ name: credential.header.toLowerCase(), value: scheme === "" ? secret : `${scheme} ${secret}` });
    secrets.push(secret);
  }
  return { headers, secrets };
}

async function readSecret(credential: HttpCredential, resolveSecret: SecretResolver | undefined): Promise<string> {
  const about = `credential for ${credential.host}: secret ${JSON.stringify(credential.secret)}`;
  if (resolveSecret === undefined) throw HostProxyError.io(`${about}: the proxy was created without resolveSecret`);
  let value: unknown;
  try {
    value = await resolveSecret(credential.secret);
  } catch (err) {
    // The cause stays on the host side; the message never carries the value.
    throw HostProxyError.io(`${about}: could not be read`, err);
  }
  if (typeof value !== "string" || value.length > MAX_SECRET_LENGTH || !FIELD_VALUE.test(value) || /\s$/.test(value)) {
    throw HostProxyError.io(`${about}: not usable as a header value (printable ASCII, no surrounding spaces, at most ${MAX_SECRET_LENGTH})`);
  }
  return value;
}
