// The daemon's protocol as the extension uses it: method names plus the types generated from
// schemas/ (src/generated, `npm run gen`). Nothing here is written by hand but the method table.
export type { EventNotification } from "./generated/pi-event";
export type { SessionState } from "./generated/pi-session-state.result";
export type { TreeNode, TreeResult } from "./generated/pi-session-tree.result";
export type {
  MessagesResult,
  MessageEntry,
  CompactionEntry,
  BranchSummaryEntry,
  CustomMessageEntry,
  UserMessage,
  AssistantMessage,
  ToolResultMessage,
  BashExecutionMessage,
  CustomMessage,
  TextContent,
  ThinkingContent,
  ToolCall,
} from "./generated/pi-session-messages.result";
export type { PermissionRequestParams } from "./generated/pi-request-permission";
export type { PermissionResult } from "./generated/pi-request-permission-result";
export type { BranchParams } from "./generated/pi-session-branch.params";
export type { BranchResult } from "./generated/pi-session-branch.result";
export type { ForkResult } from "./generated/pi-session-fork.result";
export type { LabelResult } from "./generated/pi-session-label.result";
export type { PromptParams } from "./generated/pi-session-prompt.params";
export type { PromptResult } from "./generated/pi-session-prompt.result";
export type { AbortResult } from "./generated/pi-session-abort.result";
export type { CompactionResult } from "./generated/pi-session-compact.result";
export type { SessionList, SessionInfo } from "./generated/pi-sessions-list.result";
export type { ModelsResult } from "./generated/pi-models-list.result";

import type { EventNotification } from "./generated/pi-event";
/** One `pi/event` payload (the union of every event type). */
export type PiEvent = EventNotification["event"];

export const METHODS = {
  sessionsList: "pi/sessions/list",
  sessionNew: "pi/session/new",
  sessionOpen: "pi/session/open",
  sessionClose: "pi/session/close",
  sessionState: "pi/session/state",
  sessionRename: "pi/session/rename",
  sessionTree: "pi/session/tree",
  sessionMessages: "pi/session/messages",
  sessionPrompt: "pi/session/prompt",
  sessionSteer: "pi/session/steer",
  sessionFollowUp: "pi/session/followUp",
  sessionAbort: "pi/session/abort",
  sessionBranch: "pi/session/branch",
  sessionFork: "pi/session/fork",
  sessionLabel: "pi/session/label",
  sessionCompact: "pi/session/compact",
  modelsList: "pi/models/list",
  sessionSetModel: "pi/session/setModel",
  sessionSetThinkingLevel: "pi/session/setThinkingLevel",
  event: "pi/event",
  requestPermission: "pi/requestPermission",
} as const;
