--- pi/requestPermission: ask with vim.ui.select; <Esc> or closing the picker denies at once.
--- The answer has the shape of schemas/pi-request-permission-result.schema.json:
--- { decision = "allowOnce" | "allowSession" | "deny" }.
local M = {}

M.choices = {
  { decision = "allowOnce", text = "Allow once" },
  { decision = "allowSession", text = "Allow for this session" },
  { decision = "deny", text = "Deny" },
}

--- The result for a picked item (nil: the picker was dismissed).
---@param item table?
---@return pi_lsp.PiRequestPermissionResult
function M.result(item)
  return { decision = item and item.decision or "deny" }
end

--- Ask, then call `done(result)` exactly once.
---@param params pi_lsp.PiRequestPermission
---@param done fun(result: pi_lsp.PiRequestPermissionResult)
function M.ask(params, done)
  local answered = false
  local function finish(item)
    if answered then
      return
    end
    answered = true
    done(M.result(item))
  end
  local what = params.kind == "bash" and ("run: %s"):format(params.detail)
    or ("write outside the workspace: %s"):format(params.detail)
  local ok, err = pcall(vim.ui.select, M.choices, {
    prompt = ("pi wants to %s"):format(what),
    kind = "pi_lsp.permission",
    format_item = function(item)
      return item.text
    end,
  }, finish)
  if not ok then
    vim.notify("pi_lsp: permission prompt failed: " .. tostring(err), vim.log.levels.ERROR)
    finish(nil)
  end
end

--- The server-request handler: waits for the answer without blocking the editor (Neovim runs
--- server-request handlers in a coroutine).
function M.handler(_, params)
  local co = coroutine.running()
  local result, waiting
  M.ask(params or {}, function(r)
    result = r
    if waiting then
      vim.schedule(function()
        coroutine.resume(co)
      end)
    end
  end)
  if result == nil then
    waiting = true
    coroutine.yield()
  end
  return result
end

return M
