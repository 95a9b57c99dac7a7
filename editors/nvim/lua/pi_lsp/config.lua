--- Options of require("pi_lsp").setup() and their defaults (documented in :help pi_lsp-config).
local M = {}

---@class pi_lsp.Config
M.defaults = {
  --- Command that starts the daemon; nil: `pi-lsp` on PATH, else `<project>/.venv/bin/pi-lsp`,
  --- else the `.venv` of the pi_lsp checkout holding this plugin.
  cmd = nil, ---@type string[]?
  --- Files or folders that mark a project root (the daemon's workspace folder).
  root_markers = { ".git", "pyproject.toml", "package.json", ".pi" },
  --- Settings sent as initializationOptions.pi (see docs/protocol.md "Settings").
  settings = {},
  --- Extra environment for the daemon process.
  cmd_env = nil, ---@type table<string,string>?
  chat = {
    width = 0.4, --- fraction of the columns (or columns when > 1)
    position = "right", --- "right", "left", "bottom"
    input_height = 5,
  },
  keymaps = {
    send = "<CR>", --- normal mode in the prompt
    send_insert = "<C-s>", --- insert mode in the prompt (steers while a turn runs)
    follow_up = "<M-CR>",
    abort = "<C-c>",
    branch = "gb",
    branch_summary = "gB",
    edit_resend = "ge",
    label = "gl",
    fork = "gf",
    next_message = "]m",
    prev_message = "[m",
  },
}

M.options = vim.deepcopy(M.defaults)

---@param opts table?
function M.setup(opts)
  M.options = vim.tbl_deep_extend("force", vim.deepcopy(M.defaults), opts or {})
  return M.options
end

return M
