/**
 * The bodies of a chat message, in the shapes the approval push (runtime/webhooks/template.ts)
 * already sends to the same receivers. The text a model wrote is shown, never interpreted:
 * Slack gets a `plain_text` section (no mrkdwn, so no `<!channel>`, `<@U…>` or `<url|label>`),
 * Teams a `TextRun` (Adaptive Cards render a `TextRun` without markdown), JSON the text as a string.
 */
export const MESSAGE_FORMATS = ["slack", "teams", "json"] as const;
export type MessageFormat = (typeof MESSAGE_FORMATS)[number];

/** Slack caps a `plain_text` object at 3000 characters; longer text goes in several sections. */
const SLACK_SECTION = 3000;

export function messageBody(format: MessageFormat, text: string, title: string | undefined): unknown {
  switch (format) {
    case "slack": {
      const sections = [];
      for (let at = 0; at < text.length || at === 0; at += SLACK_SECTION) {
        sections.push({ type: "section", text: { type: "plain_text", text: text.slice(at, at + SLACK_SECTION) || " ", emoji: false } });
        if (text.length === 0) break;
      }
      return {
        // The notification's fallback: Slack reads `&`, `<` and `>` as markup here, so they are escaped.
        text: slackEscape(title === undefined ? text : `${title}: ${text}`).slice(0, 4000),
        blocks: [...(title === undefined ? [] : [{ type: "header", text: { type: "plain_text", text: title.slice(0, 150), emoji: false } }]), ...sections],
      };
    }
    case "teams":
      return adaptiveCardMessage([
        ...(title === undefined ? [] : [{ type: "RichTextBlock", inlines: [{ type: "TextRun", text: title, weight: "Bolder", size: "Medium" }] }]),
        { type: "RichTextBlock", inlines: [{ type: "TextRun", text }] },
      ]);
    case "json":
      return title === undefined ? { text } : { title, text };
  }
}

function slackEscape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** A Teams message holding one Adaptive Card with `body` (and `actions`): what incoming webhooks and Workflows take. */
export function adaptiveCardMessage(body: unknown[], actions?: unknown[]): { type: "message"; attachments: unknown[] } {
  return {
    type: "message",
    attachments: [
      {
        contentType: "application/vnd.microsoft.card.adaptive",
        contentUrl: null,
        content: { $schema: "http://adaptivecards.io/schemas/adaptive-card.json", type: "AdaptiveCard", version: "1.4", body, ...(actions === undefined ? {} : { actions }) },
      },
    ],
  };
}
