import { fileURLToPath } from "node:url";

/** test/fixtures/llm-streams, from dist/test/helpers/fake-llm (compiled) or the source tree. */
export const LLM_STREAMS = fileURLToPath(new URL("../../../../test/fixtures/llm-streams/", import.meta.url));
