/**
 * The search providers `web.search` speaks, each in its own real wire format:
 * - `searxng`: `GET {url}/search?q=…&format=json` → `{results: [{title, url, content}]}`
 *   (SearXNG's JSON API; the instance must enable the `json` format).
 * - `brave`: `GET {url}/res/v1/web/search?q=…&count=N` → `{web: {results: [{title, url,
 *   description}]}}` (Brave Search API); the `X-Subscription-Token` header is a grant
 *   credential the host adds, never seen here.
 * - `openai`: `POST {url}/chat/completions` with `web_search_options` (OpenAI's search models,
 *   and the OpenAI-compatible gateways that answer the same shape) → the answer's
 *   `choices[0].message.annotations[]` of type `url_citation` `{url, title, start_index,
 *   end_index, content?}`; the snippet is `content` when the gateway gives one, else the
 *   answer's sentence the citation closes.
 */
import { JsonArray, JsonKind, JsonNumber, JsonObject, JsonValue } from "../../sdk-as/index";
import { quote } from "../../sdk-as/json-write";
import { Header, Request } from "../../sdk-as/host/http";
import { encodeText } from "../../sdk-as/text";

export const PROVIDERS: string[] = ["searxng", "brave", "openai"];

/** What a provider's answer gave, before the caps: raw title, url and snippet text. */
export class Hit {
  constructor(public title: string, public url: string, public snippet: string) {}
}

/** The provider's default base URL, or "" when it has none (SearXNG is always self-hosted). */
export function defaultUrl(provider: string): string {
  if (provider == "brave") return "https://api.search.brave.com";
  if (provider == "openai") return "https://api.openai.com/v1";
  return "";
}

/** The request `query` makes to `provider` at `base` (no trailing slash). */
export function searchRequest(provider: string, base: string, query: string, count: i32, model: string): Request {
  const request = new Request();
  request.headers.push(new Header("accept", "application/json"));
  if (provider == "searxng") {
    request.method = "GET";
    request.url = base + "/search?q=" + encodeURIComponent(query) + "&format=json";
  } else if (provider == "brave") {
    request.method = "GET";
    request.url = base + "/res/v1/web/search?q=" + encodeURIComponent(query) + "&count=" + count.toString();
  } else {
    request.method = "POST";
    request.url = base + "/chat/completions";
    request.headers.push(new Header("content-type", "application/json"));
    request.body = encodeText('{"model":' + quoted(model) + ',"messages":[{"role":"user","content":' + quoted(query) + '}],"web_search_options":{}}');
  }
  return request;
}

/** The hits in a parsed answer of `provider`, or null when the answer is not that provider's shape. */
export function hitsOf(provider: string, answer: JsonValue): Hit[] | null {
  if (answer.kind != JsonKind.Object) return null;
  const root = <JsonObject>answer;
  if (provider == "searxng") return listed(root.get("results"), "content");
  if (provider == "brave") {
    const web = root.get("web");
    // Brave leaves `web` out when nothing matched; any other shape is not Brave's.
    if (web == null) return root.string("type") == "search" ? [] : null;
    if (web.kind != JsonKind.Object) return null;
    return listed((<JsonObject>web).get("results"), "description");
  }
  return citations(root);
}

/** `[{title, url, <snippet>}]` → hits; an entry without a url is skipped. */
function listed(value: JsonValue | null, snippetKey: string): Hit[] | null {
  if (value == null || value.kind != JsonKind.Array) return null;
  const items = (<JsonArray>value).items;
  const hits = new Array<Hit>();
  for (let i = 0; i < items.length; i++) {
    const item = unchecked(items[i]);
    if (item.kind != JsonKind.Object) continue;
    const o = <JsonObject>item;
    const url = o.string("url");
    if (url == null) continue;
    hits.push(new Hit(orEmpty(o.string("title")), url, orEmpty(o.string(snippetKey))));
  }
  return hits;
}

function citations(root: JsonObject): Hit[] | null {
  const choices = root.get("choices");
  if (choices == null || choices.kind != JsonKind.Array || (<JsonArray>choices).items.length == 0) return null;
  const first = unchecked((<JsonArray>choices).items[0]);
  if (first.kind != JsonKind.Object) return null;
  const message = (<JsonObject>first).get("message");
  if (message == null || message.kind != JsonKind.Object) return null;
  const m = <JsonObject>message;
  const text = orEmpty(m.string("content"));
  const annotations = m.get("annotations");
  const hits = new Array<Hit>();
  if (annotations == null) return hits;
  if (annotations.kind != JsonKind.Array) return null;
  const items = (<JsonArray>annotations).items;
  let previousEnd: i32 = 0;
  for (let i = 0; i < items.length; i++) {
    const item = unchecked(items[i]);
    if (item.kind != JsonKind.Object || (<JsonObject>item).string("type") != "url_citation") continue;
    const c = (<JsonObject>item).get("url_citation");
    if (c == null || c.kind != JsonKind.Object) continue;
    const citation = <JsonObject>c;
    const url = citation.string("url");
    if (url == null) continue;
    let snippet = citation.string("content");
    const start = index(citation.get("start_index"), text.length);
    if (snippet == null) snippet = sentenceBefore(text, start, previousEnd);
    previousEnd = max(previousEnd, index(citation.get("end_index"), text.length));
    hits.push(new Hit(orEmpty(citation.string("title")), url, <string>snippet));
  }
  return hits;
}

/** The answer's text a citation at `start` closes: back to the previous citation, line or sentence end. */
function sentenceBefore(text: string, start: i32, floor: i32): string {
  let from = start;
  while (from > floor) {
    const c = text.charCodeAt(from - 1);
    if (c == 0x0a || ((c == 0x2e || c == 0x21 || c == 0x3f) && from < start - 1)) break;
    from--;
  }
  return text.substring(from, start);
}

function index(value: JsonValue | null, length: i32): i32 {
  if (value == null || value.kind != JsonKind.Number) return 0;
  const n = (<JsonNumber>value).value;
  if (!(n >= 0)) return 0;
  return n > <f64>length ? length : <i32>n;
}

function orEmpty(s: string | null): string {
  return s != null ? s : "";
}

/** `s` as a JSON string literal. */
function quoted(s: string): string {
  const parts = new Array<string>();
  quote(s, parts);
  return parts.join("");
}
