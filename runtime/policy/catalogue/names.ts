/**
 * The small string schemas several entries share. The agent-manifest schema reuses them too,
 * so an agent name means the same thing in `agent.spawn` as in `capabilities/<name>.yaml`.
 */
import * as v from "valibot";

/** Agent, plugin and skill names: they become file names, so lowercase and shell-safe. */
export const NAME_REGEX = /^[a-z][a-z0-9-]{0,62}$/;
export const NAME_MESSAGE = "expected a lowercase name: a letter, then letters, digits or '-' (at most 63)";

export const AgentNameSchema = v.pipe(v.string(), v.regex(NAME_REGEX, NAME_MESSAGE));

// eslint-disable-next-line no-control-regex -- the controls are exactly what we refuse
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * A glob (see glob.ts) over names chosen elsewhere (Gmail labels, calendar ids, memory
 * scopes). Controls are refused: they forge audit lines and no real label holds one.
 */
export function patternList(what: string, max = 200) {
  return v.pipe(
    v.array(
      v.pipe(
        v.string(),
        v.minLength(1, `expected a non-empty ${what}`),
        v.maxLength(max, `expected a ${what} of at most ${max} characters`),
        v.check((s) => !CONTROL.test(s), `${what} must not contain control characters`),
      ),
    ),
    v.check((items) => unique(items), `${what}s must be unique`),
  );
}

/** A list of agent names, each at most once. */
export const AgentNameListSchema = v.pipe(v.array(AgentNameSchema), v.check((items) => unique(items), "agent names must be unique"));

export function unique(items: readonly unknown[]): boolean {
  return new Set(items).size === items.length;
}
