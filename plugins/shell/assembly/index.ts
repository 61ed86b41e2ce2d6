/**
 * The `shell` plugin: one tool that runs a command the agent is granted, as an argv list. The
 * host resolves the command, checks its arguments, confines it and kills it at its deadline;
 * this plugin only shapes the request and the result for the model.
 *
 * AssemblyScript, compiled to a core module of a few KiB (see docs/plugins.md).
 */
import { definePlugin, JsonArray, JsonKind, JsonObject, JsonString, JsonWriter, Outcome, Risk, Tool, ToolError } from "../../sdk-as/index";
import { exec, ExecRequest } from "../../sdk-as/host/shell";

/** Host u64 counts as the TypeScript SDK wrote them: a number up to 2^53, a decimal string past it. */
function count(w: JsonWriter, v: u64): JsonWriter {
  return v <= 9007199254740991 ? w.integer(<i64>v) : w.string(v.toString());
}

class RunCommand extends Tool {
  constructor() {
    super(
      "run_command",
      "Run one command with arguments, e.g. [\"git\", \"status\", \"--short\"]. No shell: no pipes, " +
        "redirection, globbing or variables; each argument is passed as written. Only commands and " +
        "options the agent is granted run. Output is kept as head and tail when long. Every run needs " +
        "a person's approval of its exact arguments.",
      '{"type":"object","properties":{"argv":{"type":"array","items":{"type":"string"},"description":"The command name, then its arguments"},' +
        '"cwd":{"type":"string","description":"Working directory, a path inside a mount (default: the first mount)"},' +
        '"stdin":{"type":"string","description":"Text given to the command\'s standard input"},' +
        '"timeout_ms":{"type":"integer","description":"Deadline in milliseconds (capped by the grant)"}},' +
        '"required":["argv"],"additionalProperties":false}',
      ["shell.exec"],
      Risk.Unsafe,
    );
  }

  run(input: JsonObject): Outcome {
    const request = new ExecRequest();
    const items = (<JsonArray>input.get("argv")).items;
    if (items.length == 0) return Outcome.fail(ToolError.invalidInput('input field "argv": expected a non-empty list of strings'));
    for (let i = 0; i < items.length; i++) {
      const item = unchecked(items[i]);
      if (item.kind != JsonKind.String) return Outcome.fail(ToolError.invalidInput('input field "argv": expected a non-empty list of strings'));
      request.argv.push((<JsonString>item).value);
    }
    request.cwd = input.string("cwd");
    request.stdin = input.string("stdin");
    const timeout = input.number("timeout_ms");
    if (timeout != null) {
      // A u32 on the ABI; the host caps it by the grant.
      if (timeout.value < 0 || timeout.value > 4294967295) return Outcome.fail(ToolError.invalidInput('input field "timeout_ms": expected a whole number from 0 to 4294967295'));
      request.timeoutMs = <i64>timeout.value;
    }
    const done = exec(request);
    const error = done.error;
    if (error != null) return Outcome.fail(ToolError.fromHost(error));
    const r = done.value;
    const w = new JsonWriter().beginObject().key("exit_code");
    if (r.hasExitCode) w.integer(<i64>r.exitCode);
    else w.null();
    w.key("signal").nullable(r.signal)
      .key("timed_out").bool(r.timedOut)
      .key("duration_ms").integer(<i64>r.durationMs)
      .key("stdout").string(r.stdout.text)
      .key("stdout_lines_dropped");
    count(w, r.stdout.linesDropped).key("stderr").string(r.stderr.text).key("stderr_lines_dropped");
    count(w, r.stderr.linesDropped);
    return Outcome.ok(w.endObject().text());
  }
}

definePlugin([new RunCommand()]);

export { cabi_realloc, describe, call, post_describe, post_call } from "../../sdk-as/index";
