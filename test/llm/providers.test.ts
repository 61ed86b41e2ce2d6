import { providerConformance } from "./provider.conformance.js";
import { providerFailureConformance } from "./provider-failures.conformance.js";
import { anthropicUnderTest, openAiUnderTest } from "./_providers.js";

providerConformance(anthropicUnderTest);
providerConformance(openAiUnderTest);
providerFailureConformance(anthropicUnderTest);
providerFailureConformance(openAiUnderTest);
