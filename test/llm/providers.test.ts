import { providerConformance } from "./provider.conformance.js";
import { anthropicUnderTest, openAiUnderTest } from "./_providers.js";

providerConformance(anthropicUnderTest);
providerConformance(openAiUnderTest);
