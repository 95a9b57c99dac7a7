--- The pi/event stream rendered into the chat as it arrives (message by message, delta by
--- delta), and what it says about the session: streaming, turns running in another process,
--- entries another program appended during this daemon's turn (a note in the chat). Loaded by
--- setup, so the state is current before the chat is first opened.
local chat = require("pi_lsp.chat")
local client = require("pi_lsp.client")
local foreign = require("pi_lsp.foreign")
local render = require("pi_lsp.render")
local state = require("pi_lsp.state")

local M = {}
local api = vim.api

local function valid(buf)
  return buf ~= nil and api.nvim_buf_is_valid(buf)
end

local handlers = {}

function handlers.message_start(event)
  local message = event.message or {}
  if message.role == "user" then
    chat.append({ { lines = { render.USER }, kind = "user" } })
    local first = chat.written
    chat.append({ { lines = vim.split(render.content_text(message.content), "\n", { plain = true }), kind = "text" } })
    chat.current = { first = first, role = "user" }
  elseif message.role == "assistant" then
    local header = render.ASSISTANT .. (message.model and (" · " .. message.model) or "")
    chat.append({ { lines = { header }, kind = "assistant" } })
    chat.current = { first = chat.written, role = "assistant" }
  else
    chat.current = { first = chat.written + 1, role = message.role }
  end
end

function handlers.message_update(event)
  local sub = event.assistantMessageEvent or {}
  local cur = chat.current
  if not cur then
    return
  end
  if cur.fold_line and sub.type ~= "thinking_delta" then
    chat.close_fold(cur.fold_line)
    cur.fold_line = nil
  end
  if sub.type == "text_start" then
    chat.append({ { lines = { "" }, kind = "text" } })
    cur.prefix, cur.level = "", "0"
  elseif sub.type == "thinking_start" then
    chat.append({ { lines = { "> _thinking_", "> " }, kind = "thinking", fold = true } })
    cur.prefix, cur.level = "> ", "1"
    cur.fold_line = chat.written - 1
  elseif sub.type == "text_delta" or sub.type == "thinking_delta" then
    chat.append_text(sub.delta or "", nil, cur.level, cur.prefix)
  elseif sub.type == "toolcall_end" and sub.toolCall then
    local call = sub.toolCall
    chat.append({ { lines = { render.tool_line(call.name, call.arguments) }, kind = "tool", tool_call_id = call.id } })
  end
end

local function set_entry(first, entry)
  for line = first, api.nvim_buf_line_count(chat.buf) do
    chat.line_entry[line] = entry
  end
end

function handlers.message_end(event)
  local message = event.message or {}
  local cur = chat.current or { first = chat.written }
  if message.role == "toolResult" then
    local first = chat.written + 1
    chat.append({ render.result_piece(message, event.entryId) })
    set_entry(first, event.entryId)
  else
    set_entry(math.max(cur.first, 1), event.entryId)
    if message.role == "assistant" then
      state.add_cost(message)
      if message.stopReason == "error" or message.stopReason == "aborted" then
        chat.append({ { lines = { "_(" .. (message.errorMessage or message.stopReason) .. ")_" }, entry = event.entryId, kind = "info" } })
      end
    end
    chat.append({ { lines = { "" }, entry = event.entryId, kind = "blank" } })
  end
  chat.current = nil
end

function handlers.tool_execution_start(event)
  chat.mark_tool(event.toolCallId, nil, "running")
end

function handlers.tool_execution_end(event)
  chat.mark_tool(event.toolCallId, nil, event.isError and "error" or "done")
end

local reload_pending = false
local function reload_soon()
  if reload_pending then
    return
  end
  reload_pending = true
  vim.defer_fn(function()
    reload_pending = false
    chat.load()
  end, 50)
end

handlers.compaction_end = reload_soon
handlers.auto_compaction_end = reload_soon

--- This daemon's running turn: { session = id, nodes = TreeNodes by id appended by others }.
M.turn = nil

local function in_turn()
  return M.turn ~= nil and M.turn.session == state.id()
end

local idle_timer = nil
--- Entries another process appends. While this daemon's turn runs they hang beside it (the
--- daemon keeps the turn on its own chain) and come back in foreign_entries, so the chat, which
--- is streaming, is not re-read. Otherwise a turn runs there: the chat follows it. A user message
--- or tool result means a model call follows; after an assistant message the turn is over unless
--- more entries come.
function handlers.entry_appended(event)
  if not event.external then
    return
  end
  if in_turn() then
    if event.entry then
      M.turn.nodes[event.entry.id] = event.entry
    end
  else
    reload_soon()
  end
  if idle_timer then
    idle_timer:stop()
    idle_timer = nil
  end
  local entry = event.entry or {}
  if entry.type == "message" and (entry.role == "user" or entry.role == "toolResult") then
    state.set_elsewhere(true)
  elseif state.elsewhere then
    idle_timer = vim.defer_fn(function()
      idle_timer = nil
      state.set_elsewhere(false)
    end, 1500)
  end
end

function handlers.state_changed(event)
  if event.state then
    if event.state.isStreaming then
      state.set_elsewhere(false)
    end
    state.set(event.state)
  end
end

--- Streaming as the events tell it (the daemon's state_changed at the start of a turn can
--- still say idle: it is sent before the turn's task runs).
local function set_streaming(flag)
  if state.session and state.session.isStreaming ~= flag then
    state.session.isStreaming = flag
    state.set(state.session)
  end
end

function handlers.agent_start()
  M.turn = { session = state.id(), nodes = {} }
  set_streaming(true)
end

function handlers.agent_end()
  M.turn = nil
  set_streaming(false)
end

--- Sent once before agent_end when another program appended during the turn.
function handlers.foreign_entries(event)
  chat.add_note(foreign.note(event, in_turn() and M.turn.nodes or {}))
end

function handlers.error(event)
  vim.notify("pi_lsp: " .. tostring(event.message), vim.log.levels.ERROR)
end

M.handlers = handlers

client.on("*", function(params)
  if params.sessionId ~= state.id() then
    return
  end
  local fn = handlers[params.event.type]
  if fn and valid(chat.buf) then
    local ok, err = pcall(fn, params.event)
    if not ok then
      vim.notify("pi_lsp: chat rendering failed: " .. tostring(err), vim.log.levels.ERROR)
    end
  elseif fn == handlers.state_changed or fn == handlers.agent_start or fn == handlers.agent_end then
    fn(params.event)
  end
end)

state.on_change(function()
  vim.schedule(function()
    vim.cmd("redrawstatus!")
  end)
end)

return M
