/** A skill as the CLI and the API list it: what it is for and what it requires, without its text. */
import type { Skill } from "./schema.js";

export interface SkillView {
  name: string;
  description: string;
  requires: { tools: string[] };
  /** Bytes of its text (what it adds to a system prompt). */
  bytes: number;
}

export function skillView(skill: Skill): SkillView {
  return { name: skill.name, description: skill.description, requires: { tools: [...skill.requiredTools] }, bytes: Buffer.byteLength(skill.body) };
}
