/** The event-stream reader, kept where the command line and its tests import it from. */
export { sseMessages } from "../client/sse.js";
