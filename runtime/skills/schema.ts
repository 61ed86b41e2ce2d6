/**
 * A skill's front matter (`skills/<name>/SKILL.md`): what it is called, what it is for, and the
 * tools its instructions use. Unknown keys are errors: a key a reader takes for a permission
 * (`grants:`, `run:`) would do nothing, and saying so beats silence. A skill is text only.
 */
import * as v from "valibot";
import { NAME_MESSAGE, NAME_REGEX, strictObject, unique } from "../policy/catalogue/index.js";

/** `plugin.tool`, as agent manifests name tools (runtime/agents/schema.ts). */
const TOOL_REF_REGEX = /^[a-z][a-z0-9-]{0,62}\.[a-z][a-z0-9_]{0,62}$/;

export const SkillFrontMatterSchema = strictObject({
  name: v.pipe(v.string("expected the skill's name"), v.regex(NAME_REGEX, NAME_MESSAGE)),
  description: v.pipe(v.string("expected a description"), v.minLength(1, "expected a description"), v.maxLength(500, "expected at most 500 characters")),
  requires: v.optional(
    strictObject({
      tools: v.optional(
        v.pipe(
          v.array(v.pipe(v.string(), v.regex(TOOL_REF_REGEX, "expected plugin.tool, e.g. files.read_file"))),
          v.check((items) => unique(items), "tool names must be unique"),
        ),
        () => [],
      ),
    }),
    () => ({ tools: [] }),
  ),
});

export type SkillFrontMatter = v.InferOutput<typeof SkillFrontMatterSchema>;

/** A loaded skill: its front matter and its text (the Markdown after the front matter). */
export interface Skill {
  name: string;
  description: string;
  /** Tools (`plugin.tool`) the agent must have for the skill to be offered. */
  requiredTools: readonly string[];
  body: string;
  /** Where it was read from (for messages). */
  file: string;
}
