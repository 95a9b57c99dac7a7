-- Generated from schemas/ by `python -m pi_lsp.schemas_gen` (make schemas).
-- Do not edit: tests/nvim/test_lua_types.py fails when this file is stale.
---@meta

---@class pi_lsp.AgentEnd The run ended; ``messages`` are every message it added.
---@field type "agent_end"
---@field messages (pi_lsp.UserMessage|pi_lsp.AssistantMessage|pi_lsp.ToolResultMessage|pi_lsp.BashExecutionMessage|pi_lsp.CustomMessage|pi_lsp.SystemMessage|pi_lsp.BranchSummaryMessage|pi_lsp.CompactionSummaryMessage)[]

---@class pi_lsp.AgentStart A run begins (one prompt, or a continuation after a retry or compaction).
---@field type "agent_start"

---@class pi_lsp.AssistantMessage One model reply, possibly partial (``aborted``) or failed (``error``).
---@field role "assistant"
---@field content (pi_lsp.TextContent|pi_lsp.ThinkingContent|pi_lsp.ToolCall)[]
---@field api string
---@field provider string
---@field model string
---@field usage pi_lsp.Usage
---@field stopReason "stop"|"length"|"toolUse"|"error"|"aborted"
---@field errorMessage? string
---@field timestamp integer

---@class pi_lsp.AutoCompactionEnd Automatic compaction ended; ``willRetry`` when the failed request is sent again.
---@field type "auto_compaction_end"
---@field result? table<string, any>
---@field aborted boolean
---@field willRetry boolean
---@field errorMessage? string

---@class pi_lsp.AutoCompactionStart Compaction started by itself: the context passed the threshold or overflowed.
---@field type "auto_compaction_start"
---@field reason pi_lsp.CompactionReason

---@class pi_lsp.AutoRetryEnd Retrying ended, with a reply (``success``) or for good (``finalError``).
---@field type "auto_retry_end"
---@field success boolean
---@field attempt integer
---@field finalError? string

---@class pi_lsp.AutoRetryStart A transient provider error: waiting ``delayMs`` before attempt ``attempt``.
---@field type "auto_retry_start"
---@field attempt integer
---@field maxAttempts integer
---@field delayMs integer
---@field errorMessage string

---@class pi_lsp.BashExecutionMessage A shell command the user ran directly (``!cmd``), with its output.
---@field role "bashExecution"
---@field command string
---@field output string
---@field exitCode? integer
---@field cancelled boolean
---@field truncated boolean
---@field fullOutputPath? string
---@field timestamp integer
---@field excludeFromContext? boolean

---@class pi_lsp.BlockDelta Text, reasoning or tool-call argument text appended to the block at ``contentIndex``.
---@field type "text_delta"|"thinking_delta"|"toolcall_delta"
---@field contentIndex integer
---@field delta string
---@field partial? pi_lsp.AssistantMessage

---@class pi_lsp.BlockEnd A text or thinking block is complete; ``content`` is its whole text.
---@field type "text_end"|"thinking_end"
---@field contentIndex integer
---@field content string
---@field partial? pi_lsp.AssistantMessage

---@class pi_lsp.BlockStart A content block opens at ``contentIndex``.
---@field type "text_start"|"thinking_start"|"toolcall_start"
---@field contentIndex integer
---@field partial? pi_lsp.AssistantMessage

---@class pi_lsp.BranchSummaryMessage In-memory form of a ``branch_summary`` entry inside a built context.
---@field role "branchSummary"
---@field summary string
---@field fromId string
---@field timestamp integer

---@class pi_lsp.CompactionDetails Files the summarized history touched, stored in the entry's ``details`` (spec 6.5).
---@field readFiles string[]
---@field modifiedFiles string[]

---@class pi_lsp.CompactionEnd A manual compaction ended.
---@field type "compaction_end"
---@field result? pi_lsp.CompactionResult
---@field errorMessage? string

---@alias pi_lsp.CompactionReason "threshold"|"overflow"

---@class pi_lsp.CompactionResult pi's ``CompactionResult``: what ``compact`` appended (and the RPC ``compact`` returns).
---@field summary string
---@field firstKeptEntryId string
---@field tokensBefore integer
---@field details pi_lsp.CompactionDetails

---@class pi_lsp.CompactionStart A manual compaction started.
---@field type "compaction_start"
---@field reason "manual"

---@class pi_lsp.CompactionSummaryMessage In-memory form of a ``compaction`` entry inside a built context.
---@field role "compactionSummary"
---@field summary string
---@field tokensBefore integer
---@field timestamp integer

---@class pi_lsp.ContextUsage How full the model's window is (pi's ``getContextUsage``).
---@field tokens? integer
---@field contextWindow integer
---@field percent? number

---@class pi_lsp.Cost Cost of one call in USD, split like the token counts.
---@field input number
---@field output number
---@field cacheRead number
---@field cacheWrite number
---@field total number

---@class pi_lsp.CustomMessage An extension message that enters the model context as a user message.
---@field role "custom"
---@field customType string
---@field content string|(pi_lsp.TextContent|pi_lsp.ImageContent)[]
---@field display boolean
---@field details? any
---@field timestamp integer

---@class pi_lsp.EntryAppended A new entry (from this daemon, or another process appending to the same file).
---@field type "entry_appended"
---@field entry pi_lsp.TreeNode
---@field external boolean

---@class pi_lsp.ForeignEntries Another program appended to the session file while this daemon ran a turn. The pi CLI takes no lock, so it may write during a turn here. Its entries are in the tree (each was also sent as ``entry_appended`` with ``external: true``), but this turn's entries and the leaf stayed on this daemon's own chain: the two turns are sibling branches, and ``leafId`` is still this daemon's. Sent once, before the turn's ``agent_end``.
---@field type "foreign_entries"
---@field entryIds string[]
---@field leafId? string

---@class pi_lsp.ImageContent An inline image.
---@field type "image"
---@field data string
---@field mimeType string

---@class pi_lsp.MessageEnd A message is complete; it has been written to the session file when this is emitted.
---@field type "message_end"
---@field message pi_lsp.UserMessage|pi_lsp.AssistantMessage|pi_lsp.ToolResultMessage|pi_lsp.BashExecutionMessage|pi_lsp.CustomMessage|pi_lsp.SystemMessage|pi_lsp.BranchSummaryMessage|pi_lsp.CompactionSummaryMessage
---@field entryId? string

---@class pi_lsp.MessageStart A message begins (user, custom, assistant or tool result).
---@field type "message_start"
---@field message pi_lsp.UserMessage|pi_lsp.AssistantMessage|pi_lsp.ToolResultMessage|pi_lsp.BashExecutionMessage|pi_lsp.CustomMessage|pi_lsp.SystemMessage|pi_lsp.BranchSummaryMessage|pi_lsp.CompactionSummaryMessage

---@class pi_lsp.MessageUpdateOut ``message_update`` as editors receive it: the streamed change only. pi's event also carries the whole partial message; the daemon leaves it out (see :func:`pi_lsp.daemon.live_session.wire_event`), so a delta costs a few bytes, not the message so far. ``message_end`` carries the complete message.
---@field type "message_update"
---@field assistantMessageEvent pi_lsp.BlockStart|pi_lsp.BlockDelta|pi_lsp.BlockEnd|pi_lsp.ToolCallEnd

---@class pi_lsp.ModelState The model a session uses.
---@field provider string
---@field modelId string
---@field contextWindow integer
---@field reasoning boolean

---@class pi_lsp.SessionState Everything an editor shows about a session.
---@field sessionId string
---@field sessionFile? string
---@field sessionName? string
---@field cwd string
---@field folder string
---@field model? pi_lsp.ModelState
---@field thinkingLevel pi_lsp.ThinkingLevel
---@field availableThinkingLevels pi_lsp.ThinkingLevel[]
---@field leafId? string
---@field isStreaming boolean
---@field isCompacting boolean
---@field steeringQueue string[]
---@field followUpQueue string[]
---@field contextUsage? pi_lsp.ContextUsage
---@field entryCount integer
---@field lastSeq integer

---@class pi_lsp.StateChanged The session's state changed.
---@field type "state_changed"
---@field state pi_lsp.SessionState

---@class pi_lsp.SystemMessage pi 1.6.0's prompt state in the transcript. A full prompt, or a patch of named sections and tool changes replayed onto earlier ones.
---@field role "system"
---@field content string|pi_lsp.TextContent[]
---@field sections? table<string, string|nil>
---@field toolsAdded? table<string, any>[]
---@field toolsRemoved? table<string, any>[]
---@field timestamp integer

---@class pi_lsp.TextContent A block of text.
---@field type "text"
---@field text string
---@field textSignature? string

---@class pi_lsp.ThinkingContent Model reasoning shown to the user; replayed to providers that accept it.
---@field type "thinking"
---@field thinking string
---@field thinkingSignature? string
---@field redacted? boolean

---@alias pi_lsp.ThinkingLevel "off"|"minimal"|"low"|"medium"|"high"|"xhigh"|"max"

---@class pi_lsp.ToolCall One tool invocation requested by the assistant.
---@field type "toolCall"
---@field id string
---@field name string
---@field arguments table<string, any>
---@field thoughtSignature? string

---@class pi_lsp.ToolCallEnd A tool call is complete (its arguments parsed).
---@field type "toolcall_end"
---@field contentIndex integer
---@field toolCall pi_lsp.ToolCall
---@field partial? pi_lsp.AssistantMessage

---@class pi_lsp.ToolExecutionEnd A tool call finished.
---@field type "tool_execution_end"
---@field toolCallId string
---@field toolName string
---@field result pi_lsp.ToolOutput
---@field isError boolean

---@class pi_lsp.ToolExecutionStart A tool call is about to run (or was rejected, then ``tool_execution_end`` follows).
---@field type "tool_execution_start"
---@field toolCallId string
---@field toolName string
---@field args table<string, any>

---@class pi_lsp.ToolExecutionUpdate Partial output of a running tool (replaces the previous one, not appended).
---@field type "tool_execution_update"
---@field toolCallId string
---@field toolName string
---@field args table<string, any>
---@field partialResult pi_lsp.ToolOutput

---@class pi_lsp.ToolOutput What a tool returns: content for the model, details for display.
---@field content (pi_lsp.TextContent|pi_lsp.ImageContent)[]
---@field details? any

---@class pi_lsp.ToolResultMessage The outcome of one tool call.
---@field role "toolResult"
---@field toolCallId string
---@field toolName string
---@field content (pi_lsp.TextContent|pi_lsp.ImageContent)[]
---@field details? any
---@field isError boolean
---@field timestamp integer

---@class pi_lsp.TreeNode One entry of the tree.
---@field id string
---@field parentId? string
---@field type string
---@field role? string
---@field preview string
---@field label? string
---@field timestamp string
---@field children string[]
---@field onActivePath boolean
---@field targetId? string
---@field targetLabel? string

---@class pi_lsp.TurnEnd The assistant message of the turn and the results of its tool calls.
---@field type "turn_end"
---@field message pi_lsp.AssistantMessage
---@field toolResults pi_lsp.ToolResultMessage[]

---@class pi_lsp.TurnError A turn stopped on an internal error.
---@field type "error"
---@field message string

---@class pi_lsp.TurnStart One model call (plus the tool calls it requested) begins.
---@field type "turn_start"

---@class pi_lsp.Usage Token usage reported by the provider for one assistant message.
---@field input integer
---@field output integer
---@field cacheRead integer
---@field cacheWrite integer
---@field totalTokens? integer
---@field cost pi_lsp.Cost

---@class pi_lsp.UserMessage What the user typed (text first, then images).
---@field role "user"
---@field content string|(pi_lsp.TextContent|pi_lsp.ImageContent)[]
---@field timestamp integer

---@class pi_lsp.EventNotification ``pi/event``: one event of a session, numbered without gaps from 1.
---@field sessionId string
---@field seq integer
---@field event pi_lsp.AgentStart|pi_lsp.AgentEnd|pi_lsp.TurnStart|pi_lsp.TurnEnd|pi_lsp.MessageStart|pi_lsp.MessageUpdateOut|pi_lsp.MessageEnd|pi_lsp.ToolExecutionStart|pi_lsp.ToolExecutionUpdate|pi_lsp.ToolExecutionEnd|pi_lsp.AutoCompactionStart|pi_lsp.AutoCompactionEnd|pi_lsp.AutoRetryStart|pi_lsp.AutoRetryEnd|pi_lsp.EntryAppended|pi_lsp.ForeignEntries|pi_lsp.StateChanged|pi_lsp.CompactionStart|pi_lsp.CompactionEnd|pi_lsp.TurnError

---@alias pi_lsp.PiEvent pi_lsp.EventNotification

---@class pi_lsp.FolderParams Which workspace folder; the first one when omitted.
---@field folder? string

---@alias pi_lsp.PiModelsListParams pi_lsp.FolderParams

---@class pi_lsp.ModelInfoOut A model the daemon can use.
---@field id string
---@field provider string
---@field modelId string

---@class pi_lsp.ModelsResult Models of providers with credentials set, plus configured ones.
---@field models pi_lsp.ModelInfoOut[]

---@alias pi_lsp.PiModelsListResult pi_lsp.ModelsResult

---@alias pi_lsp.PermissionDecision "allowOnce"|"allowSession"|"deny"

---@class pi_lsp.PermissionResult The user's answer; anything else (or no answer in time) denies.
---@field decision pi_lsp.PermissionDecision

---@alias pi_lsp.PiRequestPermissionResult pi_lsp.PermissionResult

---@alias pi_lsp.PermissionKind "bash"|"writeOutsideWorkspace"|"writeProtected"|"readSecret"

---@class pi_lsp.PermissionRequestParams ``pi/requestPermission`` (server to client): may the agent do this?
---@field sessionId string
---@field kind pi_lsp.PermissionKind
---@field toolName string
---@field toolCallId string
---@field detail string
---@field cwd string
---@field reason? string

---@alias pi_lsp.PiRequestPermission pi_lsp.PermissionRequestParams

---@class pi_lsp.SessionParams Any request about one open session.
---@field sessionId string

---@alias pi_lsp.PiSessionAbortParams pi_lsp.SessionParams

---@class pi_lsp.AbortResult The turn stopped; these queued messages were dropped (to put back in the editor).
---@field queuedTexts string[]

---@alias pi_lsp.PiSessionAbortResult pi_lsp.AbortResult

---@class pi_lsp.BranchParams Move to any entry of the tree.
---@field sessionId string
---@field entryId string
---@field summarize? boolean
---@field focus? string
---@field label? string

---@alias pi_lsp.PiSessionBranchParams pi_lsp.BranchParams

---@class pi_lsp.BranchResult Where the leaf is now.
---@field leafId? string
---@field editorText? string
---@field summaryEntryId? string
---@field moved boolean

---@alias pi_lsp.PiSessionBranchResult pi_lsp.BranchResult

---@alias pi_lsp.PiSessionCloseParams pi_lsp.SessionParams

---@class pi_lsp.Empty No result.

---@alias pi_lsp.PiSessionCloseResult pi_lsp.Empty

---@class pi_lsp.CompactParams Compact now; progress is reported with ``$/progress`` when the client supports it.
---@field sessionId string
---@field focus? string

---@alias pi_lsp.PiSessionCompactParams pi_lsp.CompactParams

---@alias pi_lsp.PiSessionCompactResult pi_lsp.CompactionResult

---@class pi_lsp.ImageIn An image attached to a prompt.
---@field data string
---@field mimeType string

---@class pi_lsp.QueueParams A steering or follow-up message for the running turn.
---@field sessionId string
---@field text string
---@field images? pi_lsp.ImageIn[]

---@alias pi_lsp.PiSessionFollowUpParams pi_lsp.QueueParams

---@class pi_lsp.QueueResult The message was queued.
---@field queued boolean

---@alias pi_lsp.PiSessionFollowUpResult pi_lsp.QueueResult

---@class pi_lsp.EntryParams An entry of an open session.
---@field sessionId string
---@field entryId string

---@alias pi_lsp.PiSessionForkParams pi_lsp.EntryParams

---@class pi_lsp.ForkResult The new session file and, for a user-message target, its text.
---@field session pi_lsp.SessionState
---@field editorText? string

---@alias pi_lsp.PiSessionForkResult pi_lsp.ForkResult

---@class pi_lsp.LabelParams Set (text) or clear (null or empty) an entry's bookmark.
---@field sessionId string
---@field entryId string
---@field label? string

---@alias pi_lsp.PiSessionLabelParams pi_lsp.LabelParams

---@class pi_lsp.LabelResult The label entry written.
---@field labelEntryId string

---@alias pi_lsp.PiSessionLabelResult pi_lsp.LabelResult

---@alias pi_lsp.PiSessionMessagesParams pi_lsp.SessionParams

---@class pi_lsp.BranchSummaryEntry What an abandoned branch learned, hung where the conversation resumed.
---@field id string
---@field parentId? string
---@field timestamp string
---@field type "branch_summary"
---@field fromId string
---@field summary string
---@field details? any
---@field fromHook? boolean
---@field usage? any

---@class pi_lsp.CompactionEntry A checkpoint summary replacing the history before ``firstKeptEntryId``.
---@field id string
---@field parentId? string
---@field timestamp string
---@field type "compaction"
---@field summary string
---@field firstKeptEntryId string
---@field tokensBefore integer
---@field details? any
---@field fromHook? boolean
---@field usage? any
---@field systemMessage? pi_lsp.SystemMessage

---@class pi_lsp.ContextEditEntry pi 1.6.0: changes what an earlier entry of the branch contributes to the context.
---@field id string
---@field parentId? string
---@field timestamp string
---@field type "context_edit"
---@field targetId string
---@field replacement? table<string, any>

---@class pi_lsp.CustomEntry Extension state; never part of the model context.
---@field id string
---@field parentId? string
---@field timestamp string
---@field type "custom"
---@field customType string
---@field data? any

---@class pi_lsp.CustomMessageEntry An extension message that enters the context as a user message.
---@field id string
---@field parentId? string
---@field timestamp string
---@field type "custom_message"
---@field customType string
---@field content string|(pi_lsp.TextContent|pi_lsp.ImageContent)[]
---@field display boolean
---@field details? any

---@class pi_lsp.HookMessage Version-2 spelling of :class:`CustomMessage`; migrated to ``custom`` on load.
---@field role "hookMessage"
---@field customType string
---@field content string|(pi_lsp.TextContent|pi_lsp.ImageContent)[]
---@field display boolean
---@field details? any
---@field timestamp integer

---@class pi_lsp.LabelEntry Sets (non-empty ``label``) or clears (absent or empty) the bookmark on ``targetId``.
---@field id string
---@field parentId? string
---@field timestamp string
---@field type "label"
---@field targetId string
---@field label? string

---@class pi_lsp.MessageEntry A conversation message (user, assistant, tool result, bash execution, custom).
---@field id string
---@field parentId? string
---@field timestamp string
---@field type "message"
---@field message pi_lsp.UserMessage|pi_lsp.AssistantMessage|pi_lsp.ToolResultMessage|pi_lsp.BashExecutionMessage|pi_lsp.CustomMessage|pi_lsp.SystemMessage|pi_lsp.HookMessage

---@class pi_lsp.ModelChangeEntry The model changed from here on.
---@field id string
---@field parentId? string
---@field timestamp string
---@field type "model_change"
---@field provider string
---@field modelId string

---@class pi_lsp.SessionInfoEntry Display name of the session (the latest one wins; an empty name clears it).
---@field id string
---@field parentId? string
---@field timestamp string
---@field type "session_info"
---@field name? string

---@class pi_lsp.ThinkingLevelChangeEntry The thinking level changed from here on.
---@field id string
---@field parentId? string
---@field timestamp string
---@field type "thinking_level_change"
---@field thinkingLevel string

---@class pi_lsp.UsageEntry pi 1.6.0: model usage outside any message (cache warming); never in the context.
---@field id string
---@field parentId? string
---@field timestamp string
---@field type "usage"
---@field kind string
---@field provider string
---@field model string
---@field usage any
---@field note? string

---@class pi_lsp.MessagesResult The entries whose messages form the context at the leaf, oldest first. ``message`` entries carry the message; a ``compaction`` stands for its summary, a ``branch_summary`` for the branch summary and a ``custom_message`` for its content.
---@field sessionId string
---@field leafId? string
---@field entries (pi_lsp.MessageEntry|pi_lsp.ThinkingLevelChangeEntry|pi_lsp.ModelChangeEntry|pi_lsp.CompactionEntry|pi_lsp.BranchSummaryEntry|pi_lsp.CustomEntry|pi_lsp.CustomMessageEntry|pi_lsp.LabelEntry|pi_lsp.SessionInfoEntry|pi_lsp.ContextEditEntry|pi_lsp.UsageEntry)[]

---@alias pi_lsp.PiSessionMessagesResult pi_lsp.MessagesResult

---@alias pi_lsp.PiSessionNewParams pi_lsp.FolderParams

---@alias pi_lsp.PiSessionNewResult pi_lsp.SessionState

---@class pi_lsp.OpenParams Open an existing session file.
---@field folder? string
---@field path string

---@alias pi_lsp.PiSessionOpenParams pi_lsp.OpenParams

---@alias pi_lsp.PiSessionOpenResult pi_lsp.SessionState

---@alias pi_lsp.StreamingBehavior "steer"|"followUp"

---@class pi_lsp.PromptParams Start a turn, or queue the message if one is running and ``streamingBehavior`` says how.
---@field sessionId string
---@field text string
---@field images? pi_lsp.ImageIn[]
---@field streamingBehavior? pi_lsp.StreamingBehavior

---@alias pi_lsp.PiSessionPromptParams pi_lsp.PromptParams

---@class pi_lsp.PromptResult Acknowledges a prompt: the stored user entry, or that it was queued.
---@field queued boolean
---@field userEntryId? string

---@alias pi_lsp.PiSessionPromptResult pi_lsp.PromptResult

---@class pi_lsp.RenameParams Name the session (a ``session_info`` entry).
---@field sessionId string
---@field name string

---@alias pi_lsp.PiSessionRenameParams pi_lsp.RenameParams

---@alias pi_lsp.PiSessionRenameResult pi_lsp.SessionState

---@class pi_lsp.SetModelParams Switch the model.
---@field sessionId string
---@field model string

---@alias pi_lsp.PiSessionSetModelParams pi_lsp.SetModelParams

---@alias pi_lsp.PiSessionSetModelResult pi_lsp.SessionState

---@class pi_lsp.SetThinkingParams Change the thinking level (clamped to what the model offers).
---@field sessionId string
---@field level pi_lsp.ThinkingLevel

---@alias pi_lsp.PiSessionSetThinkingLevelParams pi_lsp.SetThinkingParams

---@alias pi_lsp.PiSessionSetThinkingLevelResult pi_lsp.SessionState

---@alias pi_lsp.PiSessionStateParams pi_lsp.SessionParams

---@alias pi_lsp.PiSessionStateResult pi_lsp.SessionState

---@alias pi_lsp.PiSessionSteerParams pi_lsp.QueueParams

---@alias pi_lsp.PiSessionSteerResult pi_lsp.QueueResult

---@alias pi_lsp.PiSessionTreeParams pi_lsp.SessionParams

---@class pi_lsp.TreeResult Every entry; nodes in file order, roots (and orphans) in file order.
---@field leafId? string
---@field roots string[]
---@field nodes pi_lsp.TreeNode[]

---@alias pi_lsp.PiSessionTreeResult pi_lsp.TreeResult

---@alias pi_lsp.PiSessionsListParams pi_lsp.FolderParams

---@class pi_lsp.SessionInfo pi's ``SessionInfo`` for one session file (spec §2).
---@field path string
---@field id string
---@field cwd string
---@field name? string
---@field parentSessionPath? string
---@field created? string
---@field modified string
---@field messageCount integer
---@field firstMessage string
---@field allMessagesText string

---@class pi_lsp.SessionList pi's list metadata, newest first.
---@field sessions pi_lsp.SessionInfo[]

---@alias pi_lsp.PiSessionsListResult pi_lsp.SessionList

return {}
