/**
 * `clawhive/client`: the client of a clawhive server's API (`httpClient`), light enough for a
 * program that only talks to a server: it loads neither the runtime, the store's native driver
 * nor the API's app. The in-process client (`inProcessClient`, a runtime's own API in memory) is
 * exported by `clawhive`, beside the `Runtime` it takes.
 */
export type {
  AgentDetailView,
  AgentManifestText,
  AgentPutView,
  AgentValidationView,
  AgentView,
  ApprovalStatusFilter,
  ApprovalView,
  AuditRecordView,
  ClawhiveClient,
  PluginChangeOptions,
  FiringView,
  PluginDetailView,
  PluginInstallView,
  PluginSourceOptions,
  PluginView,
  RunView,
  ScheduleView,
  SecretView,
  StreamedEvent,
  SubmitRunBody,
  ToolView,
  VerifyView,
} from "./client.js";
export { ApiClawhiveClient } from "./client.js";
export { httpClient, type HttpClientOptions } from "./http.js";
export { ServerError } from "./transport.js";
