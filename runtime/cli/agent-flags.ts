/** The flags and usage line every `clawhive agent` subcommand shares. */
import { SERVER_FLAGS } from "./client.js";

export const usage = "usage: clawhive agent validate FILE... | list | show NAME | put FILE | rm NAME";

export const FLAGS = {
  json: { type: "boolean" },
  "data-dir": { type: "string" },
  agents: { type: "string" },
  "skip-host-dirs": { type: "boolean" },
  skills: { type: "string" },
  ...SERVER_FLAGS,
} as const;
