/**
 * The model-driven run loop: a run with task text and no plan is driven by its agent's model,
 * which calls the run's tools; paused for approvals and continued from state in the store.
 */
export { RunLoop } from "./loop.js";
export type { RunLoopOptions } from "./loop.js";
export { LoopStates, initialLoopState } from "./state.js";
export type { LoopState, WaitingTurn } from "./state.js";
export { buildStepRequest, environmentZone, toolSpecs } from "./request.js";
