export type {
  AgentDetailView,
  AgentView,
  ApprovalStatusFilter,
  ApprovalView,
  AuditRecordView,
  ClawhiveClient,
  FiringView,
  PluginDetailView,
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
