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
export { inProcessClient, type InProcessClientOptions } from "./in-process.js";
export { ServerError } from "./transport.js";
