/**
 * Colour for a person at a terminal, never for a pipe or a file: on when the stream is a
 * terminal, off when NO_COLOR is set to anything non-empty (no-color.org) or TERM is dumb;
 * FORCE_COLOR (non-zero) turns it on regardless, for terminals that are not TTYs (CI logs).
 * Only fixed words and marks are painted; text from a model or a tool goes through `inert`.
 */

export function colourOn(stream: { isTTY?: boolean } = process.stdout, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "" && env.FORCE_COLOR !== "0") return true;
  if (env.TERM === "dumb") return false;
  return stream.isTTY === true;
}

const CODES = { red: [31, 39], green: [32, 39], yellow: [33, 39], cyan: [36, 39], dim: [2, 22], bold: [1, 22] } as const;

export type Colour = keyof typeof CODES;

/** Painters for one stream: each returns the text unchanged when colour is off. */
export function painter(stream: { isTTY?: boolean } = process.stdout, env: NodeJS.ProcessEnv = process.env): Record<Colour, (text: string) => string> {
  const on = colourOn(stream, env);
  const paint = (colour: Colour) => (text: string) => (on ? `\u001b[${CODES[colour][0]}m${text}\u001b[${CODES[colour][1]}m` : text);
  return { red: paint("red"), green: paint("green"), yellow: paint("yellow"), cyan: paint("cyan"), dim: paint("dim"), bold: paint("bold") };
}

/** Painters for stdout. */
export const paint = painter(process.stdout);
/** Painters for stderr (event lines, hints). */
export const paintErr = painter(process.stderr);
