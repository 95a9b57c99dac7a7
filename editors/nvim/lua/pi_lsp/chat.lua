--- The chat: a markdown buffer rendering the session at its leaf (streamed as events arrive)
--- and a prompt buffer under it. Every line knows the session entry it shows, so the keys on
--- the message under the cursor (branch, summary branch, edit-and-resend, label, fork) work.
--- pi_lsp.stream writes the events into it as they arrive.
local client = require("pi_lsp.client")
local config = require("pi_lsp.config")
local foreign = require("pi_lsp.foreign")
local render = require("pi_lsp.render")
local state = require("pi_lsp.state")

local M = {}
local api = vim.api
local ns = api.nvim_create_namespace("pi_lsp.chat")

M.buf, M.win, M.input_buf, M.input_win = nil, nil, nil, nil
M.line_entry = {} --- entry id per line (1-based)
M.levels = {} --- fold level per line
M.headers = {} --- 1-based lines of message headers, in order
M.tool_marks = {} --- toolCallId → extmark id
M.current = nil --- the message being streamed: { first = line, kind = ..., level = ..., prefix = ... }
M.notes = { session = nil, list = {} } --- foreign-entries notes of one session (pi_lsp.ForeignNote[])

local function valid(buf)
  return buf ~= nil and api.nvim_buf_is_valid(buf)
end

local function win_ok(win)
  return win ~= nil and api.nvim_win_is_valid(win)
end

function M.foldexpr()
  return M.levels[vim.v.lnum] or "0"
end

local function create_buffers()
  require("pi_lsp.stream") -- renders the events here (setup loads it too; at the top: a cycle)
  if not valid(M.buf) then
    M.buf = api.nvim_create_buf(false, true)
    api.nvim_buf_set_name(M.buf, "pi://chat")
    vim.bo[M.buf].filetype = "markdown"
    vim.bo[M.buf].modifiable = false
    vim.bo[M.buf].bufhidden = "hide"
    M.line_entry, M.levels, M.headers, M.tool_marks, M.written = {}, {}, {}, {}, 0
    require("pi_lsp.keys").chat(M.buf)
  end
  if not valid(M.input_buf) then
    M.input_buf = api.nvim_create_buf(false, true)
    api.nvim_buf_set_name(M.input_buf, "pi://prompt")
    vim.bo[M.input_buf].filetype = "markdown"
    vim.bo[M.input_buf].bufhidden = "hide"
    require("pi_lsp.keys").input(M.input_buf)
  end
end

local function at_end(win)
  if not win_ok(win) then
    return false
  end
  return api.nvim_win_get_cursor(win)[1] >= api.nvim_buf_line_count(M.buf) - 1
end

local function follow(was_at_end)
  if was_at_end and win_ok(M.win) then
    api.nvim_win_set_cursor(M.win, { api.nvim_buf_line_count(M.buf), 0 })
  end
end

--- Write to the chat buffer (it is not modifiable by the user).
local function write(fn)
  local follow_end = at_end(M.win)
  vim.bo[M.buf].modifiable = true
  local ok, err = pcall(fn)
  vim.bo[M.buf].modifiable = false
  follow(follow_end)
  if not ok then
    error(err)
  end
end

--- Close the fold starting at `line` in the chat window (new folds can come up open when
--- the cursor follows the end of the buffer).
function M.close_fold(line)
  if line and win_ok(M.win) then
    api.nvim_win_call(M.win, function()
      vim.cmd("silent! " .. line .. "foldclose")
    end)
  end
end

--- Append whole pieces at the end of the buffer.
function M.append(pieces)
  local folds = {}
  write(function()
    for _, piece in ipairs(pieces) do
      local count = api.nvim_buf_line_count(M.buf)
      local start = M.written == 0 and 0 or count
      -- levels first: the fold expression is evaluated as the lines go in
      local levels = render.fold_levels({ piece })
      for i = 1, #piece.lines do
        M.line_entry[start + i] = piece.entry
        M.levels[start + i] = levels[i]
      end
      api.nvim_buf_set_lines(M.buf, start, M.written == 0 and 1 or count, false, piece.lines)
      M.written = start + #piece.lines
      if piece.kind == "user" or piece.kind == "assistant" then
        table.insert(M.headers, start + 1)
      end
      if piece.kind == "tool" and piece.tool_call_id then
        M.mark_tool(piece.tool_call_id, start, nil)
      end
      if piece.fold then
        table.insert(folds, start + 1)
      end
    end
  end)
  for _, line in ipairs(folds) do
    M.close_fold(line)
  end
end

--- Append streamed text to the last line (newlines continue with `prefix`).
function M.append_text(text, entry, level, prefix)
  write(function()
    local last = api.nvim_buf_line_count(M.buf) - 1
    local line = api.nvim_buf_get_lines(M.buf, last, last + 1, false)[1]
    local parts = vim.split(text, "\n", { plain = true })
    for i = 2, #parts do
      parts[i] = (prefix or "") .. parts[i]
    end
    for i = 2, #parts do
      M.line_entry[last + i] = entry
      M.levels[last + i] = level or "0"
    end
    api.nvim_buf_set_text(M.buf, last, #line, last, #line, parts)
    M.written = last + #parts
  end)
end

--- The status of a tool call as virtual text on its line.
function M.mark_tool(id, row, status)
  local text, hl = "… pending", "Comment"
  if status == "running" then
    text, hl = "⏳ running", "DiagnosticWarn"
  elseif status == "done" then
    text, hl = "✓ done", "DiagnosticOk"
  elseif status == "error" then
    text, hl = "✗ failed", "DiagnosticError"
  end
  local old = M.tool_marks[id]
  if row == nil then
    if not old then
      return
    end
    local pos = api.nvim_buf_get_extmark_by_id(M.buf, ns, old, {})
    row = pos[1]
    if row == nil then
      return
    end
  end
  M.tool_marks[id] = api.nvim_buf_set_extmark(M.buf, ns, row, 0, {
    id = old,
    virt_text = { { "  " .. text, hl } },
    virt_text_pos = "eol",
  })
end

--- Clear and render the whole session at its leaf.
function M.load(cb)
  local id = state.id()
  if not id then
    return cb and cb()
  end
  client.request("pi/session/messages", { sessionId = id }, function(err, result)
    if err then
      vim.notify("pi_lsp: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return cb and cb(err)
    end
    create_buffers()
    write(function()
      api.nvim_buf_clear_namespace(M.buf, ns, 0, -1)
      api.nvim_buf_set_lines(M.buf, 0, -1, false, {})
    end)
    M.line_entry, M.levels, M.headers, M.tool_marks, M.current = {}, {}, {}, {}, nil
    M.written = 0
    state.cost = 0
    for _, entry in ipairs(result.entries or {}) do
      if entry.type == "message" and entry.message and entry.message.role == "assistant" then
        state.add_cost(entry.message)
      end
    end
    if M.notes.session ~= id then
      M.notes = { session = id, list = {} }
    end
    local pieces = foreign.place(render.entries(result.entries), M.notes.list)
    M.append(pieces)
    for _, entry in ipairs(result.entries or {}) do
      local message = entry.message
      if message and message.role == "toolResult" and message.toolCallId then
        M.mark_tool(message.toolCallId, nil, message.isError and "error" or "done")
      end
    end
    if win_ok(M.win) then
      api.nvim_win_set_cursor(M.win, { api.nvim_buf_line_count(M.buf), 0 })
    end
    if cb then
      cb()
    end
  end)
end

--- Show a note (pi_lsp.ForeignNote) at the end of the chat and keep it for later renderings.
function M.add_note(note)
  local id = state.id()
  if M.notes.session ~= id then
    M.notes = { session = id, list = {} }
  end
  table.insert(M.notes.list, note)
  M.append(note.pieces)
end

--- The entry id of the line under the cursor in the chat window (or of `line`).
function M.entry_at_cursor(line)
  if not valid(M.buf) then
    return nil
  end
  if line == nil then
    local win = api.nvim_get_current_win()
    if api.nvim_win_get_buf(win) ~= M.buf then
      win = M.win
    end
    if not win_ok(win) then
      return nil
    end
    line = api.nvim_win_get_cursor(win)[1]
  end
  return M.line_entry[line]
end

local function setup_window(win)
  local wo = vim.wo[win]
  wo.foldmethod = "expr"
  wo.foldexpr = "v:lua.require'pi_lsp.chat'.foldexpr()"
  wo.foldlevel = 0
  wo.foldenable = true
  wo.wrap = true
  wo.linebreak = true
  wo.number = false
  wo.relativenumber = false
  wo.signcolumn = "no"
  wo.winbar = "%{%v:lua.require'pi_lsp'.status()%}"
  wo.conceallevel = 2
end

function M.is_open()
  return win_ok(M.win)
end

function M.open()
  create_buffers()
  if win_ok(M.win) then
    api.nvim_set_current_win(M.input_win and win_ok(M.input_win) and M.input_win or M.win)
    return
  end
  local opts = config.options.chat
  local pos = opts.position
  local width = opts.width <= 1 and math.floor(vim.o.columns * opts.width) or opts.width
  if pos == "bottom" then
    vim.cmd("botright split")
  else
    vim.cmd((pos == "left" and "topleft" or "botright") .. " vsplit")
    api.nvim_win_set_width(0, width)
  end
  M.win = api.nvim_get_current_win()
  api.nvim_win_set_buf(M.win, M.buf)
  setup_window(M.win)
  vim.cmd("belowright split")
  M.input_win = api.nvim_get_current_win()
  api.nvim_win_set_buf(M.input_win, M.input_buf)
  api.nvim_win_set_height(M.input_win, opts.input_height)
  vim.wo[M.input_win].winbar = "prompt: <CR> send · <C-s> send/steer · <M-CR> follow-up · <C-c> abort"
  vim.wo[M.input_win].number = false
  api.nvim_buf_line_count(M.buf)
  api.nvim_win_set_cursor(M.win, { api.nvim_buf_line_count(M.buf), 0 })
end

function M.close()
  for _, win in ipairs({ M.input_win, M.win }) do
    if win_ok(win) and #api.nvim_list_wins() > 1 then
      api.nvim_win_close(win, true)
    end
  end
  M.win, M.input_win = nil, nil
end

--- Make sure a session exists (a new one for the project), then call `cb`.
function M.ensure_session(cb)
  if state.id() then
    return cb()
  end
  client.request("pi/session/new", {}, function(err, result)
    if err then
      vim.notify("pi_lsp: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    state.set(result)
    M.load(cb)
  end)
end

function M.toggle()
  if M.is_open() then
    M.close()
    return
  end
  M.open()
  M.ensure_session(function() end)
end

--- Switch the chat to a session (a SessionState) and render it.
function M.show(session, cb)
  state.set(session)
  create_buffers()
  M.load(cb)
end

return M
