/** The comparison peers of `npm run bench`: Extism on `@extism/extism`, and V8's raw floor. */
export { compileEchoPlugin, ECHO_INPUT, measureExtism } from "./extism.js";
export type { CompileEchoOptions, ExtismPeerOptions } from "./extism.js";
export { measureRaw } from "./raw.js";
export type { RawFigures, RawPeerOptions } from "./raw.js";
export { percentile, timeLoop, toSample } from "./sample.js";
export type { LoopCounts, LoopOptions, PeerFigures, Sample } from "./sample.js";
