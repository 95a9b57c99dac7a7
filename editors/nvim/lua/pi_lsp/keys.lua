--- Buffer-local keys of the chat and the prompt (names and defaults in config.keymaps).
local config = require("pi_lsp.config")
local M = {}

local function map(buf, modes, lhs, fn, desc)
  if lhs and lhs ~= "" then
    vim.keymap.set(modes, lhs, fn, { buffer = buf, desc = "pi: " .. desc, nowait = true })
  end
end

local function actions()
  return require("pi_lsp.actions")
end

local function entry()
  return require("pi_lsp.chat").entry_at_cursor()
end

--- Jump to the next (dir 1) or previous (-1) message header.
function M.jump(dir)
  local chat = require("pi_lsp.chat")
  local row = vim.api.nvim_win_get_cursor(0)[1]
  local target
  if dir > 0 then
    for _, line in ipairs(chat.headers) do
      if line > row then
        target = line
        break
      end
    end
  else
    for i = #chat.headers, 1, -1 do
      if chat.headers[i] < row then
        target = chat.headers[i]
        break
      end
    end
  end
  if target then
    vim.api.nvim_win_set_cursor(0, { target, 0 })
  end
end

function M.chat(buf)
  local k = config.options.keymaps
  map(buf, "n", k.branch, function() actions().branch(entry()) end, "branch here")
  map(buf, "n", k.branch_summary, function() actions().branch_summary(entry()) end, "branch with a summary")
  map(buf, "n", k.edit_resend, function() actions().edit_resend(entry()) end, "edit and resend")
  map(buf, "n", k.label, function() actions().label(entry()) end, "label")
  map(buf, "n", k.fork, function() actions().fork(entry()) end, "fork to a new session")
  map(buf, "n", k.next_message, function() M.jump(1) end, "next message")
  map(buf, "n", k.prev_message, function() M.jump(-1) end, "previous message")
  map(buf, "n", k.abort, function() actions().abort() end, "abort")
  map(buf, "n", "q", function() require("pi_lsp.chat").close() end, "close")
end

function M.input(buf)
  local k = config.options.keymaps
  map(buf, "n", k.send, function() actions().send("steer") end, "send")
  map(buf, "i", k.send_insert, function() actions().send("steer") end, "send (steer while running)")
  map(buf, { "n", "i" }, k.follow_up, function() actions().send("followUp") end, "queue a follow-up")
  map(buf, { "n", "i" }, k.abort, function() actions().abort() end, "abort")
end

return M
