import { userInfo } from "node:os";
import { relative } from "node:path";
import { InvalidInputError } from "../errors.js";
import { scaffoldPlugin } from "../plugins/scaffold/index.js";
import { parseCommandArgs } from "./args.js";

export const pluginNewHelp = `clawhive plugin new — start a TypeScript plugin that builds, installs and runs as it is

  clawhive plugin new NAME [--dir PARENT] [--publisher P] [--typed]

  NAME              the plugin's name: a lowercase letter, then letters, digits and '-',
                    e.g. hello or pdf-tools (also its WIT world, so not a WIT keyword)
  --dir PARENT      create the folder PARENT/NAME (default: ./NAME); it must not exist or be empty
  --publisher P     who publishes the plugin (default: your user name)
  --typed           a standard component exporting typed WIT functions (each a tool, its
                    schema from its WIT types) instead of SDK tools; writes plugin.json,
                    wit/world.wit, src/index.ts, tsconfig.json, test/NAME.test.mjs, README.md

  Writes plugin.json, wit/world.wit, src/index.ts (a 'hello' tool), src/host.ts (typed host
  helpers), tsconfig.json, test/NAME.test.mjs, README.md and .gitignore.

  Exit codes: 0 created; 2 bad name, or the folder exists and is not empty.`;

export async function pluginNewCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { dir: { type: "string" }, publisher: { type: "string" }, typed: { type: "boolean" } });
  const [name, ...extra] = positionals;
  if (!name || extra.length > 0) throw new InvalidInputError("usage: clawhive plugin new NAME [--dir PARENT] [--publisher P] [--typed]", { field: "name" });
  const publisher = (values.publisher as string | undefined) ?? defaultPublisher();
  const typed = values.typed === true;
  const { dir, files } = await scaffoldPlugin(name, { publisher, typed, ...(values.dir === undefined ? {} : { parentDir: values.dir as string }) });
  const shown = relative(process.cwd(), dir) || ".";
  console.log(`created plugin ${name} in ${shown}/`);
  for (const file of files) console.log(`  ${file}`);
  console.log(`
next:
  cd ${shown}
  clawhive plugin build             # bundle and componentize into dist/
  node --test                       # build, install into a temp data dir, call ${typed ? `${name}.greet` : `${name}.hello`}
  clawhive plugin install ./dist    # install it; then grant it to an agent (see README.md)`);
  return 0;
}

function defaultPublisher(): string {
  try {
    return userInfo().username || "unknown";
  } catch {
    return "unknown";
  }
}
