/**
 * `web.search`: a query to the search provider the agent configures (plugin config
 * `search.provider`, `search.url`, …; see search-providers.ts for the wire formats), sent through
 * the host's http proxy like any fetch: the provider's host must be in the agent's http grant,
 * its address passes the SSRF checks, its API key is a grant credential the host adds, and the
 * request is audited. The answer is parsed here, in the guest, under the call's deadline and a
 * byte cap, and handed to the model as `{title, url, snippet}` items, capped and made inert.
 */
import { JsonKind, JsonObject, JsonWriter, Outcome, parseJson, Risk, Tool, ToolError } from "../../sdk-as/index";
import { configAll } from "../../sdk-as/host/config";
import { fetch } from "../../sdk-as/host/http";
import { decodeText } from "../../sdk-as/text";
import { inertLine } from "./inert";
import { defaultUrl, hitsOf, PROVIDERS, searchRequest } from "./search-providers";

/** A provider's answer larger than this is refused, never parsed in part. */
const MAX_RESPONSE_BYTES: i64 = 1 << 20;
const MAX_QUERY = 400;
const MAX_TITLE = 200;
const MAX_URL = 2048;
const DEFAULT_SNIPPET = 300;
const DEFAULT_COUNT = 5;
const MAX_COUNT = 20;

export class Search extends Tool {
  constructor() {
    super(
      "search",
      "Search the web with the search provider this agent is configured with. Returns up to `count` " +
        "results as {title, url, snippet}; fetch a result's page with fetch_page to read it.",
      '{"type":"object","properties":{"query":{"type":"string","description":"What to search for (at most 400 characters)"},' +
        '"count":{"type":"integer","description":"How many results (1 to 20; default 5, capped by the agent\'s search.max_results)"}},' +
        '"required":["query"],"additionalProperties":false}',
      ["http.fetch"],
      Risk.Guarded,
    );
  }

  run(input: JsonObject): Outcome {
    const query = (<string>input.string("query")).trim();
    if (query.length == 0) return Outcome.fail(ToolError.invalidInput('input field "query": must not be empty'));
    if (query.length > MAX_QUERY) return Outcome.fail(ToolError.invalidInput('input field "query": at most ' + MAX_QUERY.toString() + " characters, got " + query.length.toString()));
    const config = configAll();
    if (config.error != null) return Outcome.fail(ToolError.failed("web.search: the plugin config could not be read: " + <string>config.error));
    const provider = config.get("search.provider", "searxng");
    if (!PROVIDERS.includes(provider)) return Outcome.fail(ToolError.failed('web.search: config "search.provider" is ' + provider + "; expected one of " + PROVIDERS.join(", ")));
    let base = config.get("search.url", "");
    if (base.length == 0) base = defaultUrl(provider);
    if (base.length == 0) return Outcome.fail(ToolError.failed('web.search: config "search.url" is not set; ' + provider + " has no public default: set it to the instance's base URL in the agent's plugins[].config"));
    while (base.endsWith("/")) base = base.substring(0, base.length - 1);
    const cap = configInt(config.get("search.max_results", MAX_COUNT.toString()), 1, MAX_COUNT);
    if (cap < 0) return Outcome.fail(ToolError.failed('web.search: config "search.max_results" must be a whole number from 1 to ' + MAX_COUNT.toString()));
    const snippetMax = configInt(config.get("search.max_snippet", DEFAULT_SNIPPET.toString()), 20, 2000);
    if (snippetMax < 0) return Outcome.fail(ToolError.failed('web.search: config "search.max_snippet" must be a whole number from 20 to 2000'));
    const timeout = configInt(config.get("search.timeout_ms", "15000"), 100, 120000);
    if (timeout < 0) return Outcome.fail(ToolError.failed('web.search: config "search.timeout_ms" must be a whole number from 100 to 120000'));
    let count = DEFAULT_COUNT < cap ? DEFAULT_COUNT : cap;
    const asked = input.number("count");
    if (asked != null) {
      if (!asked.isInteger() || asked.value < 1 || asked.value > <f64>MAX_COUNT) return Outcome.fail(ToolError.invalidInput('input field "count": expected a whole number from 1 to ' + MAX_COUNT.toString()));
      count = <i32>asked.value < cap ? <i32>asked.value : cap;
    }

    const request = searchRequest(provider, base, query, count, config.get("search.model", "gpt-4o-search-preview"));
    request.maxBytes = MAX_RESPONSE_BYTES;
    request.timeoutMs = timeout;
    const fetched = fetch(request);
    const error = fetched.error;
    if (error != null) return Outcome.fail(ToolError.fromHost(error));
    const response = fetched.value;
    const where = provider + " at " + base;
    if (response.truncated) return Outcome.fail(ToolError.failed(where + ": the answer is larger than " + MAX_RESPONSE_BYTES.toString() + " bytes; refused unread"));
    const decoded = decodeText(response.body);
    const text = decoded != null ? <string>decoded : "";
    if (response.status < 200 || response.status > 299) {
      return Outcome.fail(ToolError.failed(where + ": HTTP " + response.status.toString() + (text.length > 0 ? ": " + inertLine(text, 300) : "")));
    }
    if (decoded == null) return Outcome.fail(ToolError.failed(where + ": the answer is not UTF-8 text"));
    const parsed = parseJson(text);
    const answer = parsed.value;
    if (answer == null) return Outcome.fail(ToolError.failed(where + ": the answer is not JSON (" + <string>parsed.error + "): " + inertLine(text, 120)));
    const hits = hitsOf(provider, answer);
    if (hits == null) return Outcome.fail(ToolError.failed(where + ": the answer is JSON but not " + provider + "'s search response shape" + (answer.kind == JsonKind.Object ? " (keys: " + inertLine((<JsonObject>answer).keys.join(", "), 200) + ")" : "")));

    const out = new JsonWriter().beginObject()
      .key("provider").string(provider)
      .key("query").string(query)
      .key("results").beginArray();
    let kept = 0;
    for (let i = 0; i < hits.length && kept < count; i++) {
      const hit = unchecked(hits[i]);
      const url = hit.url.trim();
      // Only a link the model could fetch; a `javascript:` or data URL is dropped.
      const lower = url.toLowerCase();
      if (url.length > MAX_URL || !(lower.startsWith("https://") || lower.startsWith("http://")) || inertLine(url, MAX_URL) != url) continue;
      out.beginObject()
        .key("title").string(inertLine(hit.title, MAX_TITLE))
        .key("url").string(url)
        .key("snippet").string(inertLine(hit.snippet, snippetMax))
        .endObject();
      kept++;
    }
    return Outcome.ok(out.endArray().key("more").bool(hits.length > kept).endObject().text());
  }
}

/** A config value as a whole number in [lo, hi], or -1. */
function configInt(text: string, lo: i32, hi: i32): i32 {
  const t = text.trim();
  if (t.length == 0 || t.length > 9) return -1;
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return -1;
  }
  const n = I32.parseInt(t);
  return n >= lo && n <= hi ? n : -1;
}
