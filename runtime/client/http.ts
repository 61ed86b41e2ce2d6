/** The client of a running `clawhive serve`, over HTTP (`/v1`) with a bearer token. */
import { InvalidInputError } from "../errors.js";
import { ApiClawhiveClient } from "./client.js";
import { ApiClient } from "./transport.js";

export interface HttpClientOptions {
  /** `http(s)://host:port` of the server. */
  readonly url: string;
  /** An API token (`clawhive token create`). */
  readonly token: string;
}

export function httpClient(options: HttpClientOptions): ApiClawhiveClient {
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    throw new InvalidInputError(`url: expected an http:// or https:// URL, e.g. http://127.0.0.1:7878`, { field: "url" });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new InvalidInputError("url: expected an http:// or https:// URL", { field: "url" });
  if (options.token === "" || !/^[\x21-\x7e]+$/.test(options.token)) throw new InvalidInputError("token: expected an API token ('clawhive token create' makes one)", { field: "token" });
  const target = { url: url.href.replace(/\/+$/, ""), token: options.token };
  return new ApiClawhiveClient(new ApiClient(target), { target: target.url });
}
