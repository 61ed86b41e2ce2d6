import { parseArgs, type ParseArgsConfig } from "node:util";
import { InvalidInputError } from "../errors.js";
import { didYouMean } from "../text/suggest.js";

/** `node:util` parseArgs with errors turned into clear InvalidInputErrors. */
export function parseCommandArgs(argv: string[], options: NonNullable<ParseArgsConfig["options"]>): { values: Record<string, unknown>; positionals: string[] } {
  try {
    const parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
    return { values: parsed.values as Record<string, unknown>, positionals: parsed.positionals };
  } catch (error) {
    const message = (error as Error).message.replace(/\. To specify.*$/s, "");
    const unknown = /^Unknown option '(--?[^']+)'/.exec(message)?.[1];
    const hint = unknown === undefined ? "" : didYouMean(unknown, Object.keys(options).map((name) => `--${name}`));
    throw new InvalidInputError(`${message}${hint}`);
  }
}

/** `--mount /work=./dir:rw` → a mount. Mode defaults to read-only. */
export function parseMountFlag(text: string): { guest: string; host: string; mode: "ro" | "rw" } {
  const match = /^(\/[^=]*)=(.+?)(?::(ro|rw))?$/.exec(text);
  if (!match) throw new InvalidInputError(`--mount ${text}: expected GUEST=HOST[:ro|rw], e.g. /work=./project:rw`, { field: "mount" });
  return { guest: match[1]!, host: match[2]!, mode: (match[3] as "ro" | "rw" | undefined) ?? "ro" };
}
