/**
 * Bindings for `wasi:config/store@0.2.0-draft`'s `get-all`, lowered by hand to the canonical ABI:
 * the plugin's config (plugin.json `wasi.config` defaults, and what the agent grants it under
 * `plugins[].config`), read in one host call so a Step's config read is one audit record.
 * The world must import `wasi:config/store@0.2.0-draft` and ship its WIT under `wit/deps/`.
 */
import { Lent, takeStringAt } from "../abi";

@external("wasi:config/store@0.2.0-draft", "get-all")
declare function getAllImport(ret: usize): void;

/** The config as (key, value) pairs, or the reason it could not be read. */
export class ConfigValues {
  constructor(public keys: string[], public values: string[], public error: string | null) {}

  /** The value of `key`, or `otherwise` when it is not set. */
  get(key: string, otherwise: string): string {
    for (let i = 0; i < this.keys.length; i++) if (unchecked(this.keys[i]) == key) return unchecked(this.values[i]);
    return otherwise;
  }
}

/** `get-all: func() -> result<list<tuple<string, string>>, config-error>`. */
export function configAll(): ConfigValues {
  const lent = new Lent();
  const ret = lent.area;
  getAllImport(ret);
  let result: ConfigValues;
  if (load<u8>(ret) == 0) {
    const list = <usize>load<u32>(ret + 4);
    const n = <i32>load<u32>(ret + 8);
    const keys = new Array<string>(n);
    const values = new Array<string>(n);
    for (let i = 0; i < n; i++) {
      const at = list + <usize>i * 16;
      unchecked((keys[i] = takeStringAt(at)));
      unchecked((values[i] = takeStringAt(at + 8)));
    }
    if (list != 0) heap.free(list);
    result = new ConfigValues(keys, values, null);
  } else {
    // config-error: upstream(string) | io(string); both carry the reason.
    result = new ConfigValues([], [], takeStringAt(ret + 8));
  }
  lent.free();
  return result;
}
