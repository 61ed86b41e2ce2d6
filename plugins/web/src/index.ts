/**
 * The `web` plugin: fetch a page and hand the model Markdown instead of HTML. Which hosts it may
 * reach, which addresses are refused, redirects and size caps are the host's http proxy's
 * business; credentials a grant attaches are added by the host and never pass through here.
 */
import { fetch } from "clawhive:host/http@0.1.1";
import { NodeHtmlMarkdown } from "node-html-markdown";
import { decodeText, defineTool, definePlugin, fail } from "../../sdk/index.js";

const DEFAULT_MAX_BYTES = 2 * 1024 * 1024;
const converter = new NodeHtmlMarkdown({ ignore: ["script", "style", "noscript", "template", "svg", "iframe"] });

const fetchPage = defineTool({
  description:
    "Fetch a web page (GET) and return its content: HTML as Markdown (scripts and styles dropped), " +
    "other text as is. Only hosts the agent is granted are reachable. `format: raw` returns the " +
    "text unconverted.",
  inputSchema: {
    type: "object",
    properties: {
      url: { type: "string", description: "An http(s) URL" },
      format: { type: "string", enum: ["markdown", "raw"], description: "markdown (default) or raw" },
      max_bytes: { type: "integer", description: "Largest body to read, after decompression" },
    },
    required: ["url"],
    additionalProperties: false,
  },
  capabilities: ["http.fetch"],
  risk: "guarded",
  run({ url, format, max_bytes }) {
    const response = fetch({
      method: "GET",
      url,
      headers: [{ name: "accept", value: "text/html, text/markdown;q=0.9, text/plain;q=0.8, */*;q=0.1" }],
      maxBytes: BigInt(max_bytes ?? DEFAULT_MAX_BYTES),
    });
    const type = header(response.headers, "content-type") ?? "";
    if (!/^(text\/|application\/(xhtml\+xml|json|xml)|$)/i.test(type)) {
      throw fail.failed(`${response.url}: ${type} is not text; fetch_page reads text pages only`);
    }
    const text = decodeText(response.body);
    if (text === undefined) throw fail.failed(`${response.url}: the body is not UTF-8 text`);
    const html = /html/i.test(type) || (!type && /^\s*<(!doctype|html)/i.test(text));
    return {
      url: response.url,
      status: response.status,
      content_type: type,
      truncated: response.truncated,
      redirects: response.redirects,
      content: format === "raw" || !html ? text : converter.translate(text),
    };
  },
});

function header(headers: Array<{ name: string; value: string }>, name: string): string | undefined {
  return headers.find((h) => h.name.toLowerCase() === name)?.value;
}

export const tools = definePlugin({ tools: { fetch_page: fetchPage } });
