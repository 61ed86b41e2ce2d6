/** Builds parsed grant resources the way a manifest would, defaults filled in. */
import * as v from "valibot";
import { CAPABILITY_CATALOGUE } from "../../../runtime/policy/catalogue/index.js";
import type { CapabilityName, ResourceOf } from "../../../runtime/policy/catalogue/index.js";

export function resource<N extends CapabilityName>(name: N, input: unknown): ResourceOf<N> {
  return v.parse(CAPABILITY_CATALOGUE[name].resource as v.GenericSchema<unknown, ResourceOf<N>>, input);
}
