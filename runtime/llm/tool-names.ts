/**
 * Tool names on the wire. The runtime names tools `plugin.tool` (plugin: `[a-z][a-z0-9-]*`, tool:
 * `[a-z][a-z0-9_]*`), but both the Anthropic and the OpenAI APIs accept only
 * `^[a-zA-Z0-9_-]{1,64}$`. The mapping:
 * - `plugin.tool` → `plugin__tool`: plugin names have no `_`, so the first `__` is the dot;
 * - a name that is already valid on the wire is sent unchanged;
 * - anything longer than 64 characters, or with other characters, becomes its first 55 valid
 *   characters, `_`, and 8 hex digits of its SHA-256, which only the table can reverse.
 * Reversal looks the wire name up in a table built from the request's tools and history, so it is
 * exact; a name the model made up falls back to the `__` rule (the loop then reports it unknown).
 */
import { createHash } from "node:crypto";
import { LlmError } from "./errors.js";

const WIRE = /^[a-zA-Z0-9_-]{1,64}$/;
const QUALIFIED = /^([a-z][a-z0-9-]*)\.([a-z][a-z0-9_]*)$/;
const HASHED_PREFIX = 55;

/** The wire name of a runtime tool name; deterministic, so history and tools always agree. */
export function toWireToolName(name: string): string {
  const qualified = QUALIFIED.exec(name);
  const plain = qualified ? `${qualified[1]}__${qualified[2]}` : name;
  if (WIRE.test(plain)) return plain;
  const hash = createHash("sha256").update(name).digest("hex").slice(0, 8);
  const prefix = plain.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, HASHED_PREFIX);
  return `${prefix}_${hash}`;
}

/** The runtime name of a wire name no table knows: `plugin__tool` → `plugin.tool`, else unchanged. */
export function fromWireToolName(wire: string): string {
  const m = /^([a-z][a-z0-9-]*)__([a-z][a-z0-9_]*)$/.exec(wire);
  return m ? `${m[1]}.${m[2]}` : wire;
}

export class ToolNameMap {
  #toWire = new Map<string, string>();
  #fromWire = new Map<string, string>();

  constructor(names: Iterable<string>) {
    for (const name of names) this.add(name);
  }

  add(name: string): string {
    const known = this.#toWire.get(name);
    if (known !== undefined) return known;
    const wire = toWireToolName(name);
    const other = this.#fromWire.get(wire);
    if (other !== undefined) {
      throw new LlmError("llm_config", `tool names ${other} and ${name} both map to ${wire} on the wire: rename one of them`);
    }
    this.#toWire.set(name, wire);
    this.#fromWire.set(wire, name);
    return wire;
  }

  toWire(name: string): string {
    return this.#toWire.get(name) ?? this.add(name);
  }

  fromWire(wire: string): string {
    return this.#fromWire.get(wire) ?? fromWireToolName(wire);
  }

  /**
   * `text` (the system prompt, skills, a tool's description) with every known tool name written
   * as the model is offered it: a prompt that says `files.read_file` beside a tool list that
   * says `files__read_file` leaves the model to guess they are one tool.
   */
  inText(text: string): string {
    const renamed = [...this.#toWire].filter(([name, wire]) => name !== wire).sort((a, b) => b[0].length - a[0].length);
    if (renamed.length === 0 || text === "") return text;
    const pattern = new RegExp(`(?<![A-Za-z0-9_.-])(${renamed.map(([name]) => name.replace(/[.*+?^${}()|[\]\\-]/g, "\\$&")).join("|")})(?![A-Za-z0-9_-])`, "g");
    const wire = new Map(renamed);
    return text.replace(pattern, (name) => wire.get(name) ?? name);
  }
}
