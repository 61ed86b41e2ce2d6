import { Runtime } from "../runtime.js";
import { parseCommandArgs } from "./args.js";

export const toolsHelp = `clawhive tools — list the tools of the loaded plugins

  --json            print JSON (with input schemas)
  --data-dir DIR    (default ./.clawhive)`;

export async function toolsCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs(argv, { json: { type: "boolean" }, "data-dir": { type: "string" } });
  const runtime = await Runtime.create({ dataDir: (values["data-dir"] as string | undefined) ?? ".clawhive", sandbox: { poolSize: 0 }, onProgress: (l) => console.error(l) });
  try {
    const tools = runtime.tools();
    if (values.json) {
      console.log(JSON.stringify(tools, null, 2));
    } else {
      const width = Math.max(...tools.map((t) => t.qualifiedName.length));
      for (const t of tools) console.log(`${t.qualifiedName.padEnd(width)}  ${t.risk.padEnd(7)}  ${t.description}`);
    }
    return 0;
  } finally {
    await runtime.close();
  }
}
