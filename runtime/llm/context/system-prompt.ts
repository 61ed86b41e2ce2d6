/**
 * The system prompt, built from zones in a fixed order — rules (the agent manifest's
 * system_prompt: highest priority, first), environment (date, workspace, granted tools), skills,
 * memory, history (a summary of dropped turns) — each inside `<zone>…</zone>` tags, the
 * delimiter style Anthropic's prompting guide recommends and OpenAI models follow as well.
 * Memory, skills and history may hold text a tool or a person wrote, so a zone tag inside a
 * zone's content is neutralised (`</memory>` → `<\/memory>`): content cannot close its zone
 * and pose as rules.
 */

export interface PromptZones {
  rules: string;
  environment?: string | readonly string[];
  skills?: string | readonly string[];
  memory?: string | readonly string[];
  history?: string | readonly string[];
}

export const ZONE_ORDER = ["rules", "environment", "skills", "memory", "history"] as const;
export type ZoneName = (typeof ZONE_ORDER)[number];

const ZONE_TAG = new RegExp(`<(/?)(${ZONE_ORDER.join("|")})(\\s*>)`, "gi");

function neutralise(text: string): string {
  return text.replace(ZONE_TAG, (_m, slash: string, name: string, end: string) => `<${slash ? "\\/" : "\\"}${name}${end}`);
}

function zoneText(value: string | readonly string[] | undefined): string {
  if (value === undefined) return "";
  const text = typeof value === "string" ? value : value.map((item) => `- ${item}`).join("\n");
  return text.trim();
}

export function buildSystemPrompt(zones: PromptZones): string {
  const parts: string[] = [];
  for (const name of ZONE_ORDER) {
    const text = zoneText(zones[name]);
    if (text !== "") parts.push(`<${name}>\n${neutralise(text)}\n</${name}>`);
  }
  return parts.join("\n\n");
}
