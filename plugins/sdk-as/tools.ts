/**
 * The `clawhive:plugin/tools` export for an AssemblyScript plugin: `describe` and `call` lowered by
 * hand to the canonical ABI, with post-return functions that free what each result handed out.
 *
 * A plugin's entry declares its tools and re-exports these functions (see plugins/memory/src):
 *
 * ```ts
 * definePlugin([new Recall(), new Remember()]);
 * export { describe, call, post_describe, post_call, cabi_realloc } from "../../sdk-as/index";
 * ```
 *
 * The build renames `describe`/`call`/`post_*` to their canonical names
 * (`clawhive:plugin/tools@0.1.0#call`, `cabi_post_…`). An expected failure is a `tool-error` value;
 * only a bug traps (AssemblyScript's `abort`), and a trap poisons the instance as designed.
 */
import { freeKept, keep, storeString, takeString } from "./abi";
import { checkInput } from "./check-input";
import { JsonKind, JsonObject, parseJson } from "./json";
import { Outcome, ToolError, ToolErrorCase } from "./tool-error";

export const enum Risk { Safe = 0, Guarded = 1, Unsafe = 2 }

/** One tool: what `describe` says of it, and `run` over its checked input. */
export class Tool {
  private schema: JsonObject | null = null;

  constructor(
    public name: string,
    public description: string,
    /** The JSON Schema of the input, as JSON text (what `describe` returns, and what `call` checks). */
    public inputSchema: string,
    public capabilities: string[],
    public risk: Risk,
  ) {}

  /** Overridden by each tool; `input` has passed the schema's check. */
  run(input: JsonObject): Outcome {
    return Outcome.fail(ToolError.failed("tool " + this.name + ": has no run"));
  }

  parsedSchema(): JsonObject {
    let schema = this.schema;
    if (schema == null) {
      const parsed = parseJson(this.inputSchema);
      const value = parsed.value;
      // A schema that is not an object is the plugin's own bug: a trap, not a tool error.
      if (value == null || value.kind != JsonKind.Object) unreachable();
      schema = <JsonObject>value;
      this.schema = schema;
    }
    return schema;
  }
}

let registered: Tool[] = [];

/** Declares the plugin's tools (once, at the top of its entry). */
export function definePlugin(tools: Tool[]): void {
  registered = tools;
}

const DESCRIBE_RET = memory.data(8);
const CALL_RET = memory.data(32);
const DESCRIPTOR_SIZE: usize = 36;

/** `describe: func() -> list<tool-descriptor>`. */
export function describe(): usize {
  const n = registered.length;
  const list = keep(heap.alloc(<usize>n * DESCRIPTOR_SIZE));
  const blocks = new Array<usize>();
  for (let i = 0; i < n; i++) {
    const tool = unchecked(registered[i]);
    const at = list + <usize>i * DESCRIPTOR_SIZE;
    storeString(at, tool.name, blocks);
    storeString(at + 8, tool.description, blocks);
    storeString(at + 16, tool.inputSchema, blocks);
    const caps = keep(heap.alloc(<usize>tool.capabilities.length * 8));
    for (let c = 0; c < tool.capabilities.length; c++) storeString(caps + <usize>c * 8, unchecked(tool.capabilities[c]), blocks);
    store<u32>(at + 24, <u32>caps);
    store<u32>(at + 28, <u32>tool.capabilities.length);
    store<u8>(at + 32, <u8>tool.risk);
  }
  for (let i = 0; i < blocks.length; i++) keep(unchecked(blocks[i]));
  store<u32>(DESCRIBE_RET, <u32>list);
  store<u32>(DESCRIBE_RET + 4, <u32>n);
  return DESCRIBE_RET;
}

/** `call: func(name: string, input: string) -> result<string, tool-error>`. */
export function call(namePtr: usize, nameLen: usize, inputPtr: usize, inputLen: usize): usize {
  const name = takeString(namePtr, nameLen);
  const input = takeString(inputPtr, inputLen);
  const outcome = runNamed(name, input);
  const blocks = new Array<usize>();
  const error = outcome.error;
  if (error == null) {
    store<u8>(CALL_RET, 0);
    storeString(CALL_RET + 4, outcome.json, blocks);
  } else {
    store<u8>(CALL_RET, 1);
    store<u8>(CALL_RET + 4, <u8>error.tag);
    const denial = error.denial;
    if (error.tag == ToolErrorCase.Denied && denial != null) {
      storeString(CALL_RET + 8, denial.capability, blocks);
      storeString(CALL_RET + 16, denial.reason, blocks);
      storeString(CALL_RET + 24, denial.message, blocks);
    } else {
      // A denial without its record cannot be lowered as `denied`: it leaves as `failed`.
      if (error.tag == ToolErrorCase.Denied) store<u8>(CALL_RET + 4, <u8>ToolErrorCase.Failed);
      storeString(CALL_RET + 8, error.message, blocks);
    }
  }
  for (let i = 0; i < blocks.length; i++) keep(unchecked(blocks[i]));
  return CALL_RET;
}

function runNamed(name: string, input: string): Outcome {
  let tool: Tool | null = null;
  const names = new Array<string>();
  for (let i = 0; i < registered.length; i++) {
    const t = unchecked(registered[i]);
    names.push(t.name);
    if (t.name == name) tool = t;
  }
  if (tool == null) return Outcome.fail(ToolError.notFound("tool \"" + name + "\": this plugin has no such tool (tools: " + names.join(", ") + ")"));
  const parsed = parseJson(input);
  const value = parsed.value;
  if (value == null) return Outcome.fail(ToolError.invalidInput("input: is not valid JSON: " + (parsed.error != null ? <string>parsed.error : "unreadable")));
  const problem = checkInput(tool.parsedSchema(), value);
  if (problem != null) return Outcome.fail(ToolError.invalidInput(problem));
  return tool.run(<JsonObject>value);
}

/** `cabi_post_…#describe`: frees the descriptors `describe` handed out. */
export function post_describe(ret: usize): void {
  freeKept();
}

/** `cabi_post_…#call`: frees the result `call` handed out. */
export function post_call(ret: usize): void {
  freeKept();
}
