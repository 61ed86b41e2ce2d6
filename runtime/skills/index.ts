/**
 * Skills: `skills/<name>/SKILL.md`, knowledge an agent's model can be given. Text only: a skill
 * grants nothing and runs nothing; it enters the system prompt only when the agent's grants
 * cover the tools it requires.
 */
export { defaultSkillsDir, loadSkills, MAX_SKILL_BYTES, parseSkill, SKILL_FILE, SkillError, SkillsCache } from "./load.js";
export type { LoadedSkills } from "./load.js";
export { SkillFrontMatterSchema } from "./schema.js";
export type { Skill, SkillFrontMatter } from "./schema.js";
export { skillsFor } from "./select.js";
export type { SelectedSkills, SkillLeftOut, SkillsForOptions } from "./select.js";
export { skillProblems } from "./validate.js";
export type { SkillProblemsOptions } from "./validate.js";
export { skillsZone } from "./zone.js";
export { skillView } from "./view.js";
export type { SkillView } from "./view.js";
