import { InvalidInputError } from "../errors.js";
import { Runtime } from "../runtime.js";
import { parseCommandArgs, parseMountFlag } from "./args.js";

export const callHelp = `clawhive call — run one tool in a fresh run, then end the run

  clawhive call TOOL [JSON-INPUT] --mount GUEST=HOST[:ro|rw] ...

  TOOL              plugin.tool or a bare tool name, e.g. files.read_file
  JSON-INPUT        the tool's input as JSON (default {})
  --mount M         grant a mount, e.g. --mount /work=./project:rw (read-only unless :rw)
  --timeout MS      deadline of the call
  --json            print the whole outcome as JSON
  --data-dir DIR    (default ./.clawhive)

  Exit codes: 0 the tool returned output; 1 the tool returned an error; 2 bad usage.`;

export async function callCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    mount: { type: "string", multiple: true },
    timeout: { type: "string" },
    json: { type: "boolean" },
    "data-dir": { type: "string" },
  });
  const [tool, inputText = "{}", ...rest] = positionals;
  if (!tool || rest.length > 0) throw new InvalidInputError("usage: clawhive call TOOL [JSON-INPUT] --mount GUEST=HOST[:ro|rw]");
  let input: unknown;
  try {
    input = JSON.parse(inputText);
  } catch (error) {
    throw new InvalidInputError(`JSON-INPUT: not valid JSON: ${(error as Error).message}`, { field: "input" });
  }
  const timeoutMs = values.timeout === undefined ? undefined : Number(values.timeout);
  if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs > 0)) throw new InvalidInputError("--timeout: expected milliseconds > 0", { field: "timeout" });
  const mounts = ((values.mount as string[] | undefined) ?? []).map(parseMountFlag);
  const runtime = await Runtime.create({ dataDir: (values["data-dir"] as string | undefined) ?? ".clawhive", sandbox: { poolSize: 0 }, onProgress: (l) => console.error(l) });
  try {
    const run = await runtime.startRun({ grants: { fs: { mounts: mounts.map((m) => ({ ...m, host: m.host })) } } });
    const outcome = await run.callTool(tool, input, timeoutMs === undefined ? {} : { timeoutMs });
    await run.end();
    if (values.json) console.log(JSON.stringify(outcome, null, 2));
    else if (outcome.status === "ok") console.log(typeof outcome.output === "string" ? outcome.output : JSON.stringify(outcome.output, null, 2));
    else console.error(`${tool}: ${outcome.error.kind}: ${outcome.error.message}`);
    return outcome.status === "ok" ? 0 : 1;
  } finally {
    await runtime.close();
  }
}
