--- workspace/applyEdit for pi_lsp: never apply an edit made for another buffer text.
---
--- Neovim 0.11's own handler applies unversioned edits blindly, skips its version check at
--- version 0, and answers `applied: true` when it drops a stale versioned edit. This handler
--- checks every TextDocumentEdit's version against the buffer's current LSP version (its
--- changedtick, which Neovim bumps on every change before the didChange is even sent): any
--- mismatch refuses the whole edit with a reason. An accepted edit is applied as one undo
--- step, and its didChange is flushed before the answer, so the daemon sees the edit's result
--- on its own (not batched with typing that follows).
local M = {}

--- The first reason `edit` cannot be applied now, or nil.
--- Pure apart from the lookups passed in (tested without a UI).
---@param edit table WorkspaceEdit
---@param lookup fun(uri: string): integer?, boolean? current version of the loaded buffer, and whether the buffer is modified since the version was known
---@return string? reason
function M.refusal(edit, lookup)
  if edit.changes and next(edit.changes) ~= nil then
    return "unversioned edits (changes) are refused: pi_lsp needs versioned documentChanges"
  end
  for _, change in ipairs(edit.documentChanges or {}) do
    if change.textDocument then
      local uri, version = change.textDocument.uri, change.textDocument.version
      if version ~= nil and version ~= vim.NIL then
        local current = lookup(uri)
        if current == nil then
          return ("%s is not loaded in the editor"):format(uri)
        elseif current ~= version then
          return ("%s changed since the edit was made (buffer version %d, edit for %d)"):format(
            vim.uri_to_fname(uri), current, version)
        end
      end
    end
  end
  return nil
end

--- The handler (runs inside Neovim's server-request coroutine).
---@param params table ApplyWorkspaceEditParams
---@param ctx table
function M.handler(_, params, ctx)
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  if not client then
    return { applied = false, failureReason = "pi_lsp client is gone" }
  end
  local edit = params.edit or {}
  local reason = M.refusal(edit, function(uri)
    local bufnr = vim.uri_to_bufnr(uri)
    if not vim.api.nvim_buf_is_loaded(bufnr) then
      return nil
    end
    return vim.lsp.util.buf_versions[bufnr]
  end)
  if reason then
    return { applied = false, failureReason = reason }
  end
  local buffers = {}
  for _, change in ipairs(edit.documentChanges or {}) do
    if change.textDocument then
      buffers[vim.uri_to_bufnr(change.textDocument.uri)] = true
    end
  end
  local ok, err = pcall(vim.lsp.util.apply_workspace_edit, edit, client.offset_encoding)
  if not ok then
    return { applied = false, failureReason = tostring(err) }
  end
  local ct = require("vim.lsp._changetracking")
  for bufnr in pairs(buffers) do
    if vim.api.nvim_buf_is_loaded(bufnr) then
      pcall(ct.flush, client, bufnr)
    end
  end
  return { applied = true }
end

return M
