--- :Pi tree: the session tree in a buffer (active path highlighted, leaf marked, labels,
--- compaction and branch-summary nodes). <CR> navigates, s navigates with a summary, l labels,
--- f forks. Kept current from entry_appended and state_changed events; entries another program
--- appended during this daemon's turn (foreign_entries) are marked.
local client = require("pi_lsp.client")
local state = require("pi_lsp.state")
local tree = require("pi_lsp.tree")

local M = {}
local api = vim.api
local ns = api.nvim_create_namespace("pi_lsp.tree")
M.buf, M.win, M.model, M.ids = nil, nil, nil, {}
M.foreign = { session = nil, ids = {} } --- entry ids foreign_entries named, of one session

vim.api.nvim_set_hl(0, "PiTreeActive", { default = true, link = "Title" })
vim.api.nvim_set_hl(0, "PiTreeLeaf", { default = true, link = "CursorLine" })
vim.api.nvim_set_hl(0, "PiTreeForeign", { default = true, link = "Comment" })

function M.is_open()
  return M.win ~= nil and api.nvim_win_is_valid(M.win)
end

local function entry()
  return M.ids[api.nvim_win_get_cursor(0)[1]]
end

local function create()
  if M.buf and api.nvim_buf_is_valid(M.buf) then
    return
  end
  M.buf = api.nvim_create_buf(false, true)
  api.nvim_buf_set_name(M.buf, "pi://tree")
  vim.bo[M.buf].filetype = "pi_tree"
  vim.bo[M.buf].modifiable = false
  vim.bo[M.buf].bufhidden = "hide"
  local actions = require("pi_lsp.actions")
  local function map(lhs, fn, desc)
    vim.keymap.set("n", lhs, fn, { buffer = M.buf, desc = "pi tree: " .. desc, nowait = true })
  end
  map("<CR>", function() actions.branch(entry()) end, "navigate here")
  map("s", function() actions.branch_summary(entry()) end, "navigate with a summary")
  map("l", function() actions.label(entry()) end, "label")
  map("f", function() actions.fork(entry()) end, "fork")
  map("q", function() M.close() end, "close")
end

--- Draw the model into the buffer.
function M.draw()
  if not (M.buf and api.nvim_buf_is_valid(M.buf) and M.model) then
    return
  end
  local lines, ids, flags = tree.lines(M.model)
  M.ids = ids
  vim.bo[M.buf].modifiable = true
  api.nvim_buf_set_lines(M.buf, 0, -1, false, lines)
  vim.bo[M.buf].modifiable = false
  api.nvim_buf_clear_namespace(M.buf, ns, 0, -1)
  local marked = M.foreign.session == M.session and M.foreign.ids or {}
  for i, flag in ipairs(flags) do
    if marked[ids[i]] then
      api.nvim_buf_set_extmark(M.buf, ns, i - 1, 0, { virt_text = { { "  ← another program", "PiTreeForeign" } } })
    end
    if flag.leaf then
      api.nvim_buf_set_extmark(M.buf, ns, i - 1, 0, { line_hl_group = "PiTreeLeaf" })
    end
    if flag.active then
      api.nvim_buf_set_extmark(M.buf, ns, i - 1, 0, { end_row = i - 1, end_col = #lines[i], hl_group = "PiTreeActive" })
    end
  end
end

function M.reload(cb)
  local id = state.id()
  if not id then
    return
  end
  client.request("pi/session/tree", { sessionId = id }, function(err, result)
    if err then
      return vim.notify("pi_lsp: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    end
    M.model = tree.new(result)
    M.session = id
    M.draw()
    if cb then
      cb()
    end
  end)
end

function M.open()
  if not state.id() then
    return vim.notify("pi_lsp: no session: open the chat with :Pi first", vim.log.levels.WARN)
  end
  create()
  if not M.is_open() then
    vim.cmd("botright vsplit")
    M.win = api.nvim_get_current_win()
    api.nvim_win_set_buf(M.win, M.buf)
    vim.wo[M.win].wrap = false
    vim.wo[M.win].number = false
    vim.wo[M.win].cursorline = true
  end
  M.reload(function()
    local leaf = M.model and M.model.leaf
    for i, id in ipairs(M.ids) do
      if id == leaf and M.is_open() then
        api.nvim_win_set_cursor(M.win, { i, 0 })
      end
    end
  end)
end

function M.close()
  if M.is_open() and #api.nvim_list_wins() > 1 then
    api.nvim_win_close(M.win, true)
  end
  M.win = nil
end

function M.toggle()
  if M.is_open() then
    M.close()
  else
    M.open()
  end
end

local pending = false
local function draw_soon()
  if pending then
    return
  end
  pending = true
  vim.schedule(function()
    pending = false
    M.draw()
  end)
end

client.on("entry_appended", function(params)
  if M.model and params.sessionId == M.session and params.event.entry then
    tree.add(M.model, params.event.entry)
    draw_soon()
  end
end)

client.on("foreign_entries", function(params)
  if params.sessionId ~= state.id() then
    return
  end
  if M.foreign.session ~= params.sessionId then
    M.foreign = { session = params.sessionId, ids = {} }
  end
  for _, id in ipairs(params.event.entryIds or {}) do
    M.foreign.ids[id] = true
  end
  draw_soon()
end)

client.on("state_changed", function(params)
  local s = params.event.state
  if M.model and params.sessionId == M.session and s and s.leafId ~= M.model.leaf then
    M.model.leaf = s.leafId ~= vim.NIL and s.leafId or nil
    draw_soon()
  end
end)

return M
