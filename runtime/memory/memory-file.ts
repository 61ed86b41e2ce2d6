import { randomBytes } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { InvalidInputError } from "../errors.js";
import { MemoryError } from "./errors.js";

/** MEMORY.md is read into every system prompt: keep it small. */
export const MEMORY_FILE_MAX_BYTES = 32 * 1024;
const AGENT_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** `<dataDir>/agents/<agent>/MEMORY.md`; the agent name is checked so it can never leave dataDir. */
export function memoryFilePath(dataDir: string, agent: string): string {
  if (!AGENT_NAME.test(agent)) throw new InvalidInputError(`memory file agent: "${agent}" must match ${AGENT_NAME.source}`, { field: "agent" });
  return join(dataDir, "agents", agent, "MEMORY.md");
}

/** The agent's MEMORY.md, "" when there is none. A file people grew past the cap is refused, not cut. */
export async function readMemoryFile(dataDir: string, agent: string, options: { maxBytes?: number } = {}): Promise<string> {
  const path = memoryFilePath(dataDir, agent);
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "";
    throw error;
  }
  const max = options.maxBytes ?? MEMORY_FILE_MAX_BYTES;
  if (bytes.length > max) throw tooLarge(path, bytes.length, max);
  return bytes.toString("utf8");
}

/** Writes MEMORY.md atomically (a temp file in the same directory, then rename). */
export async function writeMemoryFile(dataDir: string, agent: string, text: string, options: { maxBytes?: number } = {}): Promise<void> {
  const path = memoryFilePath(dataDir, agent);
  const bytes = Buffer.from(text, "utf8");
  const max = options.maxBytes ?? MEMORY_FILE_MAX_BYTES;
  if (bytes.length > max) throw tooLarge(path, bytes.length, max);
  await mkdir(join(path, ".."), { recursive: true });
  const temp = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    await writeFile(temp, bytes, { flag: "wx" });
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

function tooLarge(path: string, size: number, max: number): MemoryError {
  return new MemoryError("memory_file_too_large", `memory file ${path}: ${size} bytes is over the ${max}-byte cap; shorten it`);
}
