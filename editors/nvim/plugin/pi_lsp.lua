-- pi_lsp: the :Pi command (lazy: modules load on first use). Configure with
-- require("pi_lsp").setup({...}); see :help pi_lsp.
if vim.g.loaded_pi_lsp then
  return
end
vim.g.loaded_pi_lsp = true

-- :help pi_lsp from a plain runtimepath entry too (plugin managers build the tags, a bare rtp
-- entry does not): build them where they are missing or older than the help file, if the
-- plugin's doc/ folder is writable. Two stats at start-up.
local doc = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h:h") .. "/doc"
local help, tags = vim.uv.fs_stat(doc .. "/pi_lsp.txt"), vim.uv.fs_stat(doc .. "/tags")
if help and (not tags or tags.mtime.sec < help.mtime.sec) and vim.fn.filewritable(doc) == 2 then
  pcall(vim.cmd.helptags, doc)
end

vim.api.nvim_create_user_command("Pi", function(cmd)
  require("pi_lsp.commands").run(cmd.fargs)
end, {
  nargs = "*",
  desc = "pi agent: chat, sessions, tree, model, …",
  complete = function(arg_lead, line)
    return require("pi_lsp.commands").complete(arg_lead, line)
  end,
})
