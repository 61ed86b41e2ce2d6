import type { WitFunction, WitType } from "./wit-types.js";

/** What the reader keeps of a component's index spaces (see component-types.ts). */
export type TypeDef =
  | WitType
  | { kind: "func-type"; func: WitFunction }
  | { kind: "instance-type"; exports: Map<string, Entity> }
  | { kind: "component-type"; exports: Map<string, Entity> }
  | { kind: "resource"; name?: string };

export type Entity =
  | { sort: "func"; func: WitFunction }
  | { sort: "type"; type: TypeDef }
  | { sort: "instance"; exports: Map<string, Entity> }
  | { sort: "component"; exports: Map<string, Entity> }
  | { sort: "other" };

export interface Scope {
  types: TypeDef[];
  funcs: Entity[];
  instances: Entity[];
  components: Entity[];
  parent?: Scope;
  /**
   * Set on the outermost scope: for each imported instance, the names of its exports aliased
   * (what the component takes from it), or `all` once the instance is used whole (handed to a
   * nested component, exported, or reached from a nested one).
   */
  uses?: Map<Entity, Set<string> | "all">;
}

