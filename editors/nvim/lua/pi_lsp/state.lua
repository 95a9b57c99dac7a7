--- The current session as the editor knows it: its SessionState (from the daemon; state_changed
--- keeps it current), the cost so far, and whether a turn runs in another process.
local M = {}

M.session = nil ---@type pi_lsp.PiSessionStateResult?
M.cost = 0
M.elsewhere = false --- entries are being appended by another process
M.loading_models = false --- a pi/models/list request is out (the model picker waits for it)
M.listeners = {} ---@type fun()[]

function M.on_change(fn)
  table.insert(M.listeners, fn)
end

local function changed()
  for _, fn in ipairs(M.listeners) do
    pcall(fn)
  end
end

function M.id()
  return M.session and M.session.sessionId or nil
end

---@param state pi_lsp.PiSessionStateResult
function M.set(state)
  if M.session == nil or M.session.sessionId ~= state.sessionId then
    M.cost = 0
    M.elsewhere = false
  end
  M.session = state
  changed()
end

--- Add the cost of assistant messages (from pi/session/messages or message_end).
function M.add_cost(message)
  local usage = type(message) == "table" and message.usage
  local cost = type(usage) == "table" and type(usage.cost) == "table" and usage.cost.total
  if type(cost) == "number" then
    M.cost = M.cost + cost
  end
end

function M.set_elsewhere(flag)
  if M.elsewhere ~= flag then
    M.elsewhere = flag
    changed()
  end
end

--- "model · context % · cost" (pure on the given state, for tests).
---@param s pi_lsp.PiSessionStateResult?
---@param cost number?
---@param elsewhere boolean?
function M.format(s, cost, elsewhere)
  if type(s) ~= "table" then
    return ""
  end
  local parts = {}
  local model = type(s.model) == "table" and s.model.modelId or "no model"
  if s.thinkingLevel and s.thinkingLevel ~= "off" then
    model = model .. " (" .. s.thinkingLevel .. ")"
  end
  table.insert(parts, model)
  local usage = s.contextUsage
  if type(usage) == "table" and type(usage.percent) == "number" then
    table.insert(parts, ("%.1f%%"):format(usage.percent))
  else
    table.insert(parts, "?%")
  end
  table.insert(parts, ("$%.4f"):format(cost or 0))
  local text = table.concat(parts, " · ")
  if s.isStreaming then
    text = text .. " · running"
  elseif s.isCompacting then
    text = text .. " · compacting"
  elseif elsewhere then
    text = text .. " · running elsewhere"
  end
  return text
end

function M.status()
  local text = M.format(M.session, M.cost, M.elsewhere)
  if M.loading_models then
    text = text == "" and "loading models…" or text .. " · loading models…"
  end
  return text
end

return M
