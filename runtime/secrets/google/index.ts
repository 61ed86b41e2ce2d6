/** Google accounts connected by OAuth: the installed-app flow, the stored credential, access tokens. */
export { GoogleAccessTokens } from "./access-tokens.js";
export type { AccessTokensOptions } from "./access-tokens.js";
export { checkEndpoint, DEFAULT_GOOGLE_SECRET, GOOGLE_AUTHORIZATION_ENDPOINT, GOOGLE_SCOPES, GOOGLE_TOKEN_ENDPOINT, parseGoogleCredential, scopeUrl } from "./credential.js";
export type { GoogleCredential } from "./credential.js";
export { runInstalledAppFlow } from "./installed-app.js";
export type { InstalledAppFlowOptions } from "./installed-app.js";
export { OAuthError, postTokenRequest } from "./token-endpoint.js";
export type { TokenAnswer } from "./token-endpoint.js";
