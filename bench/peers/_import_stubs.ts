/**
 * Stub imports built from a module's declared import types (`_import_types.ts`): functions
 * that return zero of their result types, and fresh memories, tables, globals and tags per
 * instance so no two instances share state.
 */
import { InvalidInputError } from "../../runtime/errors.js";
import type { ImportType, TypedImport, ValueType } from "./_import_types.js";

export interface ImportStubs {
  /** A fresh import object: shared function stubs, new memories, tables, globals, tags. */
  make(): WebAssembly.Imports;
  /** How many times any function stub ran. */
  readonly calls: number;
}

/**
 * Throws `InvalidInputError` listing every import JS cannot stand in for: 64-bit memories and
 * tables, tables or globals of GC or v128 types. A function whose type has v128 or GC
 * references is stubbed (the instance still links) but V8 throws a TypeError if it is called.
 */
export function createImportStubs(imports: readonly TypedImport[]): ImportStubs {
  const refused = imports.flatMap((item) => {
    const reason = unstubbable(item.type);
    return reason === undefined ? [] : [`${item.module}#${item.name}: ${reason}`];
  });
  if (refused.length > 0) {
    throw new InvalidInputError(`raw floor: imports that cannot be stubbed: ${refused.join("; ")}`);
  }

  const state = { calls: 0 };
  const functions = new Map<TypedImport, (...args: unknown[]) => unknown>();
  for (const item of imports) {
    if (item.type.kind !== "function") continue;
    const results = item.type.results.map(zeroOf);
    const value = results.length === 0 ? undefined : results.length === 1 ? results[0] : results;
    functions.set(item, () => {
      state.calls++;
      // A multi-value result is read from an iterable: hand out a copy each time.
      return Array.isArray(value) ? [...value] : value;
    });
  }

  return {
    make() {
      const object: Record<string, Record<string, WebAssembly.ImportValue>> = {};
      for (const item of imports) {
        const namespace = (object[item.module] ??= {});
        namespace[item.name] = functions.get(item) ?? makeValue(item.type);
      }
      return object;
    },
    get calls() {
      return state.calls;
    },
  };
}

function makeValue(type: ImportType): WebAssembly.ImportValue {
  switch (type.kind) {
    case "memory":
      return new WebAssembly.Memory({
        initial: type.limits.min,
        ...(type.limits.max === undefined ? {} : { maximum: type.limits.max }),
        ...(type.limits.shared ? { shared: true } : {}),
      });
    case "table":
      return new WebAssembly.Table({
        element: type.element as WebAssembly.TableKind,
        initial: type.limits.min,
        ...(type.limits.max === undefined ? {} : { maximum: type.limits.max }),
      });
    case "global":
      return new WebAssembly.Global(
        { value: type.value as WebAssembly.ValueType, mutable: type.mutable },
        zeroOf(type.value) as number | bigint | null,
      );
    case "tag":
      // Node 20 has WebAssembly.Tag; @types/node does not declare it.
      return new (WebAssembly as unknown as { Tag: new (type: { parameters: string[] }) => object }).Tag({
        parameters: [...type.params],
      }) as WebAssembly.ImportValue;
    case "function":
      throw new Error("raw floor: function imports are stubbed once, not per instance");
  }
}

function unstubbable(type: ImportType): string | undefined {
  switch (type.kind) {
    case "memory":
      if (type.limits.is64) return "memory64 is not supported by Node 20's JS API";
      if (type.limits.shared && type.limits.max === undefined) return "a shared memory needs a maximum";
      return undefined;
    case "table":
      if (type.limits.is64) return "table64 is not supported by Node 20's JS API";
      if (type.element !== "anyfunc" && type.element !== "externref") return `table of ${type.element}`;
      return undefined;
    case "global":
      if (type.value === "v128" || type.value.startsWith("other")) return `global of ${type.value}`;
      return undefined;
    case "tag":
      if (type.params.some((value) => value.startsWith("other"))) return "tag with GC reference parameters";
      return undefined;
    case "function":
      return undefined;
  }
}

function zeroOf(type: ValueType): unknown {
  switch (type) {
    case "i64":
      return 0n;
    case "i32":
    case "f32":
    case "f64":
      return 0;
    default:
      return null;
  }
}
