/**
 * The `skills` zone of the system prompt (see `buildSystemPrompt`): each skill's name, what it
 * is for, and its text. The zone builder neutralises zone tags inside, so a skill's text cannot
 * close its zone and pose as rules.
 */
import type { Skill } from "./schema.js";

export function skillsZone(skills: readonly Skill[]): string {
  if (skills.length === 0) return "";
  const parts = skills.map((s) => `## Skill: ${s.name}\n${s.description}\n\n${s.body}`);
  return ["Skills: instructions for tasks of these kinds. They are guidance only; they grant no permission.", ...parts].join("\n\n");
}
