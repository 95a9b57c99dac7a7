-- pi_lsp: the :Pi command (lazy: modules load on first use). Configure with
-- require("pi_lsp").setup({...}); see :help pi_lsp.
if vim.g.loaded_pi_lsp then
  return
end
vim.g.loaded_pi_lsp = true

vim.api.nvim_create_user_command("Pi", function(cmd)
  require("pi_lsp.commands").run(cmd.fargs)
end, {
  nargs = "*",
  desc = "pi agent: chat, sessions, tree, model, …",
  complete = function(arg_lead, line)
    return require("pi_lsp.commands").complete(arg_lead, line)
  end,
})
