--- What the commands and keys do: thin wrappers around the daemon's pi/… methods that update
--- the chat (and tree) with the answers.
local client = require("pi_lsp.client")
local state = require("pi_lsp.state")

local M = {}

local function chat()
  return require("pi_lsp.chat")
end

M.NO_MODEL = -32005 --- the daemon's error code when no model is selected (docs/protocol.md)

local told = {} --- error text → when it was last shown (vim.uv.now())

--- Show an error once: the daemon reports a prompt that fails before its turn runs twice (the
--- request's error and an `error` event "Turn failed: …", in either order). `core` is what
--- both say; `text` (default `core`) what is shown.
function M.error(core, text)
  local now = vim.uv.now()
  if told[core] and now - told[core] < 5000 then
    return
  end
  told[core] = now
  vim.notify("pi_lsp: " .. (text or core), vim.log.levels.ERROR)
end

--- One error message; for "no model" it says how to choose one here.
local function fail(err)
  local core = type(err) == "table" and (err.message or vim.inspect(err)) or tostring(err)
  local text = core
  if type(err) == "table" and err.code == M.NO_MODEL then
    text = text .. ' (in Neovim: choose one with :Pi model, or setup({ settings = { defaultModel = "provider/model" } }))'
  end
  M.error(core, text)
end

--- Call a session method on the current session; `cb(result)` on success.
local function call(method, params, cb)
  local id = state.id()
  if not id then
    return fail("no session: open the chat with :Pi (or :Pi sessions)")
  end
  params = vim.tbl_extend("force", { sessionId = id }, params or {})
  client.request(method, params, function(err, result)
    if err then
      return fail(err)
    end
    if cb then
      cb(result)
    end
  end)
end
M.call = call

local function refresh_tree()
  local ok, tree = pcall(require, "pi_lsp.tree_view")
  if ok and tree.is_open() then
    tree.reload()
  end
end

--- Put text in the prompt buffer and focus it.
function M.set_input(text)
  local c = chat()
  if not c.is_open() then
    c.open()
  end
  vim.api.nvim_buf_set_lines(c.input_buf, 0, -1, false, vim.split(text or "", "\n", { plain = true }))
  if c.input_win and vim.api.nvim_win_is_valid(c.input_win) then
    vim.api.nvim_set_current_win(c.input_win)
  end
end

--- Send the prompt buffer: a prompt when idle; while a turn runs `mode` "steer" or "followUp".
function M.send(mode)
  local c = chat()
  local lines = vim.api.nvim_buf_get_lines(c.input_buf, 0, -1, false)
  local text = vim.trim(table.concat(lines, "\n"))
  if text == "" then
    return
  end
  c.ensure_session(function()
    local streaming = state.session and state.session.isStreaming
    local method, params = "pi/session/prompt", { text = text }
    if streaming then
      method = mode == "followUp" and "pi/session/followUp" or "pi/session/steer"
    end
    call(method, params, function()
      vim.api.nvim_buf_set_lines(c.input_buf, 0, -1, false, {})
      if streaming then
        vim.notify(("pi_lsp: %s queued"):format(mode == "followUp" and "follow-up" or "steering message"))
      end
    end)
  end)
end

function M.abort()
  call("pi/session/abort", {}, function(result)
    local queued = result and result.queuedTexts or {}
    if #queued > 0 then
      M.set_input(table.concat(queued, "\n\n"))
    end
  end)
end

--- A callback for when the chat shows the new leaf: the text (a resent message) goes to the input.
local function with_input(text)
  return function()
    if text then
      M.set_input(text)
    end
  end
end

--- Branch at an entry (pi's /tree navigation); `opts.summarize`, `opts.focus`.
function M.branch(entry, opts)
  if not entry then
    return fail("no message under the cursor")
  end
  opts = opts or {}
  call("pi/session/branch", { entryId = entry, summarize = opts.summarize or nil, focus = opts.focus }, function(result)
    chat().load(with_input(result.editorText))
    refresh_tree()
  end)
end

--- Branch with a summary of the branch left behind; asks for an optional focus.
function M.branch_summary(entry)
  if not entry then
    return fail("no message under the cursor")
  end
  vim.ui.input({ prompt = "Summary focus (optional): " }, function(focus)
    if focus == nil then
      return -- cancelled
    end
    M.branch(entry, { summarize = true, focus = focus ~= "" and focus or nil })
  end)
end

--- Edit and resend a user message: the leaf moves to its parent, its text goes to the input.
function M.edit_resend(entry)
  if not entry then
    return fail("no message under the cursor")
  end
  M.branch(entry)
end

function M.label(entry, text)
  if not entry then
    return fail("no entry")
  end
  local function set(label)
    call("pi/session/label", { entryId = entry, label = label ~= "" and label or vim.NIL }, function()
      refresh_tree()
      vim.notify(label ~= "" and ("pi_lsp: labelled " .. label) or "pi_lsp: label cleared")
    end)
  end
  if text then
    return set(text)
  end
  vim.ui.input({ prompt = "Label (empty clears): " }, function(label)
    if label ~= nil then
      set(label)
    end
  end)
end

function M.fork(entry)
  entry = entry or (state.session and state.session.leafId)
  if not entry then
    return fail("nothing to fork")
  end
  call("pi/session/fork", { entryId = entry }, function(result)
    chat().show(result.session, with_input(result.editorText))
    refresh_tree()
  end)
end

--- Ask for a session (`pi/session/new` or `pi/session/open`) and show it in the open chat.
local function show_session(method, params)
  client.request(method, params, function(err, session)
    if err then
      return fail(err)
    end
    chat().show(session)
    if not chat().is_open() then
      chat().open()
    end
    refresh_tree()
  end)
end

function M.new()
  show_session("pi/session/new", {})
end

--- One picker line for a session: name, time, first message.
function M.session_label(info)
  local name = info.name ~= vim.NIL and info.name or nil
  local first = type(info.firstMessage) == "string" and info.firstMessage:gsub("\n", " ") or ""
  local when = type(info.modified) == "string" and info.modified:sub(1, 16):gsub("T", " ") or ""
  return ("%s  %s  %s"):format(when, name or "(unnamed)", first:sub(1, 60))
end

function M.sessions()
  client.request("pi/sessions/list", {}, function(err, result)
    if err then
      return fail(err)
    end
    local sessions = result.sessions or {}
    if #sessions == 0 then
      return vim.notify("pi_lsp: no sessions in this folder yet")
    end
    vim.ui.select(sessions, { prompt = "pi sessions", kind = "pi_lsp.sessions", format_item = M.session_label }, function(info)
      if not info then
        return
      end
      show_session("pi/session/open", { path = info.path })
    end)
  end)
end

--- The model picker. Listing the models can take seconds (the first list of a litellm
--- install waits for its import), so the user sees "loading models…" at once (a message and
--- the winbar), then the picker, or an error saying what failed.
function M.model(id)
  local function set(model)
    call("pi/session/setModel", { model = model }, function(s)
      state.set(s)
      vim.notify("pi_lsp: model " .. model)
    end)
  end
  if id then
    return set(id)
  end
  if state.loading_models then
    return vim.notify("pi_lsp: still loading models…")
  end
  state.loading_models = true
  vim.notify("pi_lsp: loading models…")
  vim.cmd("redrawstatus!")
  client.request("pi/models/list", {}, function(err, result)
    state.loading_models = false
    vim.cmd("redrawstatus!")
    if err then
      local why = type(err) == "table" and (err.message or vim.inspect(err)) or tostring(err)
      return M.error("could not list the models: " .. why)
    end
    local models = result and result.models or {}
    if #models == 0 then
      return M.error(
        "no models to choose from: set a provider key (e.g. ANTHROPIC_API_KEY, OPENAI_API_KEY)"
          .. " in the daemon's environment, or settings.models / defaultModel in setup()"
      )
    end
    vim.ui.select(models, {
      prompt = "pi model",
      kind = "pi_lsp.model",
      format_item = function(m)
        return m.id
      end,
    }, function(m)
      if m then
        set(m.id)
      end
    end)
  end)
end

function M.thinking(level)
  local function set(l)
    call("pi/session/setThinkingLevel", { level = l }, function(s)
      state.set(s)
    end)
  end
  if level then
    return set(level)
  end
  local levels = state.session and state.session.availableThinkingLevels or { "off" }
  vim.ui.select(levels, { prompt = "pi thinking level", kind = "pi_lsp.thinking" }, function(l)
    if l then
      set(l)
    end
  end)
end

function M.compact(focus)
  vim.notify("pi_lsp: compacting…")
  call("pi/session/compact", { focus = focus }, function(result)
    vim.notify(("pi_lsp: compacted (%d tokens before)"):format(result.tokensBefore or 0))
    chat().load()
    refresh_tree()
  end)
end

function M.rename(name)
  if not name or name == "" then
    return fail("usage: :Pi rename {name}")
  end
  call("pi/session/rename", { name = name }, function(s)
    state.set(s)
  end)
end

return M
