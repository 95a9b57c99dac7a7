--- pi_lsp for Neovim: the pi coding agent through the pi_lsp daemon. See :help pi_lsp.
local M = {}

--- Configure and start. Safe to call again (options are replaced).
---@param opts table? see :help pi_lsp-config
function M.setup(opts)
  require("pi_lsp.config").setup(opts)
  M._setup_done = true
  require("pi_lsp.stream") -- follows the pi/event stream from now on
  return require("pi_lsp.client").setup()
end

--- Statusline text: model · context % · cost (empty without a session).
function M.status()
  return require("pi_lsp.state").status()
end

--- The session entry id of the chat message under the cursor (nil elsewhere).
function M.entry_at_cursor()
  return require("pi_lsp.chat").entry_at_cursor()
end

--- Toggle the chat window.
function M.toggle()
  require("pi_lsp.chat").toggle()
end

return M
