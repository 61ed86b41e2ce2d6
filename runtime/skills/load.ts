/**
 * Reads skills: `<dir>/<name>/SKILL.md`, YAML front matter between `---` lines, then the text.
 * The folder name is the skill's name (an agent lists skills by it), so the two must agree.
 */
import { readdirSync, statSync } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import * as v from "valibot";
import { parseDocument } from "yaml";
import { InvalidInputError } from "../errors.js";
import { NAME_REGEX } from "../policy/catalogue/index.js";
import { PROJECT_ROOT } from "../plugins/locations.js";
import { SkillFrontMatterSchema, type Skill } from "./schema.js";

/** A SKILL.md larger than this is refused: it enters every system prompt of the agents using it. */
export const MAX_SKILL_BYTES = 32 * 1024;
export const SKILL_FILE = "SKILL.md";

/** A skill file that cannot be used, with where and why. */
export class SkillError extends InvalidInputError {
  readonly file: string;
  constructor(file: string, path: string, message: string) {
    super(`${file}: ${path}: ${message}`, { field: path });
    this.file = file;
  }
}

const FRONT_MATTER = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** Parses one SKILL.md's text; `folder` is the name of the folder it lives in. */
export function parseSkill(text: string, options: { file: string; folder: string }): Skill {
  const { file, folder } = options;
  if (Buffer.byteLength(text) > MAX_SKILL_BYTES) throw new SkillError(file, "(root)", `larger than ${MAX_SKILL_BYTES} bytes; keep a skill short, it enters the system prompt`);
  const match = FRONT_MATTER.exec(text.replace(/^\uFEFF/, ""));
  if (!match) throw new SkillError(file, "(root)", "expected YAML front matter between two '---' lines at the top");
  const doc = parseDocument(match[1]!, { uniqueKeys: true });
  const yamlError = doc.errors[0];
  if (yamlError) throw new SkillError(file, "(front matter)", `invalid YAML: ${yamlError.message.split("\n")[0]}`);
  const parsed = v.safeParse(SkillFrontMatterSchema, doc.toJS() ?? {});
  if (!parsed.success) {
    const issue = parsed.issues[0]!;
    throw new SkillError(file, v.getDotPath(issue) ?? "(front matter)", issue.message);
  }
  const front = parsed.output;
  if (front.name !== folder) throw new SkillError(file, "name", `is ${front.name} but the folder is ${folder}; they must be the same`);
  const body = text.slice(text.indexOf(match[0]) + match[0].length).trim();
  if (body === "") throw new SkillError(file, "(body)", "expected the skill's text after the front matter");
  return { name: front.name, description: front.description, requiredTools: front.requires.tools, body, file };
}

/** What loading a skills folder found: the skills, and the files that could not be used. */
export interface LoadedSkills {
  skills: Map<string, Skill>;
  problems: SkillError[];
}

/**
 * Every skill of `dir` (a missing folder has none). A broken skill is reported and left out, so
 * one bad file does not take every agent's skills away; validation shows the problem.
 */
export async function loadSkills(dir: string): Promise<LoadedSkills> {
  const skills = new Map<string, Skill>();
  const problems: SkillError[] = [];
  let entries: string[];
  try {
    entries = (await readdir(dir)).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { skills, problems };
    throw error;
  }
  for (const folder of entries) {
    const file = join(dir, folder, SKILL_FILE);
    if (!(await stat(join(dir, folder))).isDirectory()) continue;
    if (!NAME_REGEX.test(folder)) {
      problems.push(new SkillError(file, "(folder)", "expected a lowercase folder name: a letter, then letters, digits or '-'"));
      continue;
    }
    try {
      const size = (await stat(file)).size;
      if (size > MAX_SKILL_BYTES) throw new SkillError(file, "(root)", `larger than ${MAX_SKILL_BYTES} bytes; keep a skill short, it enters the system prompt`);
      skills.set(folder, parseSkill(await readFile(file, "utf8"), { file, folder }));
    } catch (error) {
      if (error instanceof SkillError) problems.push(error);
      else if ((error as NodeJS.ErrnoException).code === "ENOENT") problems.push(new SkillError(file, "(root)", `no ${SKILL_FILE} in this folder`));
      else throw error;
    }
  }
  return { skills, problems };
}

/**
 * `loadSkills` for a folder read before every model-driven run: the folder is parsed again
 * only when what `stat` says of it or of a SKILL.md changed (added, removed, edited), so a
 * run pays a few synchronous stats instead of reading and parsing every file.
 */
export class SkillsCache {
  readonly #dir: string;
  #signature: string | undefined;
  #loaded: Promise<LoadedSkills> | undefined;

  constructor(dir: string) {
    this.#dir = dir;
  }

  load(): Promise<LoadedSkills> {
    const signature = folderSignature(this.#dir);
    if (this.#loaded === undefined || signature !== this.#signature) {
      this.#signature = signature;
      this.#loaded = loadSkills(this.#dir);
      // A failed read is not kept: the next run reads again.
      this.#loaded.catch(() => {
        if (this.#signature === signature) this.#loaded = undefined;
      });
    }
    return this.#loaded;
  }
}

/** The folder's entries and each SKILL.md's identity, size and times; "" when there is no folder. */
function folderSignature(dir: string): string {
  let entries: string[];
  try {
    entries = readdirSync(dir).sort();
  } catch {
    return "";
  }
  const parts = [String(statSync(dir, { throwIfNoEntry: false })?.mtimeMs)];
  for (const entry of entries) {
    const info = statSync(join(dir, entry, SKILL_FILE), { throwIfNoEntry: false });
    parts.push(info ? `${entry}:${info.ino}:${info.size}:${info.mtimeMs}:${info.ctimeMs}` : `${entry}:-`);
  }
  return parts.join("|");
}

/** The project's own skills folder (`skills/` beside `capabilities/`). */
export function defaultSkillsDir(): string {
  return join(PROJECT_ROOT, "skills");
}
