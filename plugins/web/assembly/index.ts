/**
 * The `web` plugin: fetch a page and hand the model Markdown instead of HTML; search the web with
 * the provider the agent configures (search.ts). Which hosts it may
 * reach, which addresses are refused, redirects and size caps are the host's http proxy's
 * business; credentials a grant attaches are added by the host and never pass through here.
 *
 * The HTML is converted here, in the guest (markdown.ts): the page's bytes stay inside the
 * sandbox, under the call's deadline and memory cap, and the converter is one bounded pass.
 * AssemblyScript, compiled to a core module of a few KiB (see docs/plugins.md).
 */
import { definePlugin, JsonObject, JsonWriter, Outcome, Risk, Tool, ToolError } from "../../sdk-as/index";
import { fetch, Header, Request } from "../../sdk-as/host/http";
import { decodeText } from "../../sdk-as/text";
import { htmlToMarkdown } from "./markdown";
import { Search } from "./search";

const DEFAULT_MAX_BYTES: i64 = 2 * 1024 * 1024;

class FetchPage extends Tool {
  constructor() {
    super(
      "fetch_page",
      "Fetch a web page (GET) and return its content: HTML as Markdown (scripts and styles dropped), " +
        "other text as is. Only hosts the agent is granted are reachable. `format: raw` returns the " +
        "text unconverted.",
      '{"type":"object","properties":{"url":{"type":"string","description":"An http(s) URL"},' +
        '"format":{"type":"string","enum":["markdown","raw"],"description":"markdown (default) or raw"},' +
        '"max_bytes":{"type":"integer","description":"Largest body to read, after decompression"}},' +
        '"required":["url"],"additionalProperties":false}',
      ["http.fetch"],
      Risk.Guarded,
    );
  }

  run(input: JsonObject): Outcome {
    const request = new Request();
    request.method = "GET";
    request.url = <string>input.string("url");
    request.headers.push(new Header("accept", "text/html, text/markdown;q=0.9, text/plain;q=0.8, */*;q=0.1"));
    request.maxBytes = DEFAULT_MAX_BYTES;
    const max = input.number("max_bytes");
    if (max != null) {
      // A u64 on the ABI; the host caps it by the grant.
      if (max.value < 0 || max.value > 9007199254740991) return Outcome.fail(ToolError.invalidInput('input field "max_bytes": expected a whole number of at least 0'));
      request.maxBytes = <i64>max.value;
    }
    const fetched = fetch(request);
    const error = fetched.error;
    if (error != null) return Outcome.fail(ToolError.fromHost(error));
    const response = fetched.value;
    const found = response.header("content-type");
    const type = found != null ? found : "";
    if (!readable(type)) return Outcome.fail(ToolError.failed(response.url + ": " + type + " is not text; fetch_page reads text pages only"));
    const decoded = decodeText(response.body);
    if (decoded == null) return Outcome.fail(ToolError.failed(response.url + ": the body is not UTF-8 text"));
    const text = <string>decoded;
    const html = type.toLowerCase().includes("html") || (type.length == 0 && looksLikeHtml(text));
    const raw = input.string("format") == "raw";
    return Outcome.ok(new JsonWriter().beginObject()
      .key("url").string(response.url)
      .key("status").integer(<i64>response.status)
      .key("content_type").string(type)
      .key("truncated").bool(response.truncated)
      .key("redirects").integer(<i64>response.redirects)
      .key("content").string(raw || !html ? text : htmlToMarkdown(text))
      .endObject().text());
  }
}

/** A text type, or none at all: `text/*`, XHTML, JSON, XML. */
function readable(type: string): bool {
  if (type.length == 0) return true;
  const t = type.toLowerCase();
  return t.startsWith("text/") || t.startsWith("application/xhtml+xml") || t.startsWith("application/json") || t.startsWith("application/xml");
}

/** An untyped body that opens with `<!doctype` or `<html`, after leading white space. */
function looksLikeHtml(text: string): bool {
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c != 0x20 && c != 0x09 && c != 0x0a && c != 0x0d && c != 0x0c && c != 0x0b && c != 0xa0 && c != 0xfeff && !(c >= 0x2000 && c <= 0x200a) && c != 0x2028 && c != 0x2029 && c != 0x3000 && c != 0x1680 && c != 0x202f && c != 0x205f) break;
    i++;
  }
  const head = text.substring(i, i + 9).toLowerCase();
  return head.startsWith("<!doctype") || head.startsWith("<html");
}

definePlugin([new FetchPage(), new Search()]);

export { cabi_realloc, describe, call, post_describe, post_call } from "../../sdk-as/index";
