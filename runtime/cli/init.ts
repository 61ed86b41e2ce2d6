import { existsSync } from "node:fs";
import { appendFile, mkdir, readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { DATA_DIR_NAME, findDataDir, STORE_FILE } from "../config/data-dir.js";
import { InvalidInputError } from "../errors.js";
import { openStore } from "../store/index.js";
import { parseCommandArgs } from "./args.js";
import { inert } from "./render.js";

export const initHelp = `clawhive init — make a store on purpose, in a folder of your choice

  clawhive init [DIR]

  Creates DIR/.clawhive (default: the working folder) with an empty store and its workspace
  folder. Commands run in DIR or below then use it (they look for the nearest .clawhive holding
  a store from the working folder up, else use the project's). When DIR has a .gitignore,
  .clawhive/ is added to it: the store and its secret key are never committed.

  Exit codes: 0 created; 1 a store is already there; 2 bad usage.`;

export async function initCommand(argv: string[]): Promise<number> {
  const { positionals } = parseCommandArgs(argv, {});
  if (positionals.length > 1) throw new InvalidInputError("usage: clawhive init [DIR]");
  const dir = resolve(positionals[0] ?? ".");
  const dataDir = join(dir, DATA_DIR_NAME);
  if (existsSync(join(dataDir, STORE_FILE))) {
    console.error(inert(`clawhive: a store is already at ${dataDir}; nothing to do`, { newlines: false }));
    return 1;
  }
  const above = findDataDir(dir);
  await mkdir(join(dataDir, "workspace"), { recursive: true });
  const store = await openStore({ url: `file:${join(dataDir, STORE_FILE)}` });
  await store.execute("SELECT 1");
  await store.close();
  const ignored = await ignoreDataDir(dir);
  console.log(inert(`created ${dataDir}: commands run in ${dir} or below use it`, { newlines: false }));
  if (ignored) console.log(`added ${DATA_DIR_NAME}/ to ${join(dir, ".gitignore")}`);
  if (above !== undefined) console.log(inert(`(it takes the place of ${above} there)`, { newlines: false }));
  console.log("next: 'clawhive doctor' checks the rest (bubblewrap, plugins built, model keys)");
  return 0;
}

/** Adds `.clawhive/` to an existing .gitignore that does not name it; true when it did. */
async function ignoreDataDir(dir: string): Promise<boolean> {
  const file = join(dir, ".gitignore");
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    return false;
  }
  if (text.split(/\r?\n/).some((line) => /^\/?\.clawhive\/?$/.test(line.trim()))) return false;
  await appendFile(file, `${text.endsWith("\n") || text === "" ? "" : "\n"}${DATA_DIR_NAME}/\n`);
  return true;
}
