--- :Pi and its subcommands (with completion).
local M = {}

local function actions()
  return require("pi_lsp.actions")
end

M.subcommands = {
  new = function() actions().new() end,
  sessions = function() actions().sessions() end,
  tree = function() require("pi_lsp.tree_view").toggle() end,
  model = function(args) actions().model(args[1]) end,
  thinking = function(args) actions().thinking(args[1]) end,
  compact = function(args) actions().compact(#args > 0 and table.concat(args, " ") or nil) end,
  abort = function() actions().abort() end,
  rename = function(args) actions().rename(table.concat(args, " ")) end,
  label = function(args)
    local chat = require("pi_lsp.chat")
    local state = require("pi_lsp.state")
    local entry = chat.entry_at_cursor() or (state.session and state.session.leafId)
    actions().label(entry, #args > 0 and table.concat(args, " ") or nil)
  end,
  fork = function() actions().fork(require("pi_lsp.chat").entry_at_cursor()) end,
}

function M.run(fargs)
  if not require("pi_lsp")._setup_done then
    require("pi_lsp").setup()
  end
  local name = fargs[1]
  if not name then
    return require("pi_lsp.chat").toggle()
  end
  local fn = M.subcommands[name]
  if not fn then
    return vim.notify("pi_lsp: unknown subcommand " .. name .. " (see :help pi_lsp-commands)", vim.log.levels.ERROR)
  end
  fn(vim.list_slice(fargs, 2))
end

function M.complete(arg_lead, line)
  local words = vim.split(line, "%s+", { trimempty = true })
  local completing_first = #words == 1 or (#words == 2 and not line:match("%s$"))
  if completing_first then
    local names = vim.tbl_keys(M.subcommands)
    table.sort(names)
    return vim.tbl_filter(function(n) return vim.startswith(n, arg_lead) end, names)
  end
  if words[2] == "thinking" then
    return vim.tbl_filter(function(n) return vim.startswith(n, arg_lead) end,
      { "off", "minimal", "low", "medium", "high", "xhigh" })
  end
  return {}
end

return M
