--- The chat's rendering model (pure: no buffers, unit-tested): session entries and messages
--- become pieces of markdown lines. Each piece knows its entry id and whether it folds
--- (thinking, tool results, compaction and branch summaries fold; the rest stays open).
local M = {}

---@class pi_lsp.Piece
---@field lines string[]
---@field entry string? session entry id
---@field fold boolean? fold these lines
---@field kind string user|assistant|thinking|text|tool|result|compaction|branch_summary|info|blank
---@field tool_call_id string?

local function split(text)
  return vim.split(text or "", "\n", { plain = true })
end

--- The text of a message's content (string or blocks), images as a placeholder.
function M.content_text(content)
  if type(content) == "string" then
    return content
  end
  local out = {}
  for _, block in ipairs(type(content) == "table" and content or {}) do
    if block.type == "text" then
      table.insert(out, block.text or "")
    elseif block.type == "image" then
      table.insert(out, "[image]")
    end
  end
  return table.concat(out, "\n")
end

local function short(value, max)
  local text = type(value) == "string" and value or vim.json.encode(value)
  text = text:gsub("\n", " ")
  if #text > max then
    text = text:sub(1, max - 1) .. "…"
  end
  return text
end

--- One line for a tool call: its name and main argument.
function M.tool_line(name, args)
  args = type(args) == "table" and args or {}
  local main = args.path or args.command or args.pattern or args.query
  if main == nil and next(args) ~= nil then
    main = args
  end
  return ("▸ %s%s"):format(name or "tool", main ~= nil and (" " .. short(main, 80)) or "")
end

M.USER = "## You"
M.ASSISTANT = "## pi"

--- Pieces for one assistant message's content blocks.
local function assistant_pieces(message, id, out)
  local header = M.ASSISTANT
  if message.model then
    header = header .. " · " .. message.model
  end
  table.insert(out, { lines = { header }, entry = id, kind = "assistant" })
  for _, block in ipairs(type(message.content) == "table" and message.content or {}) do
    if block.type == "thinking" and (block.thinking or "") ~= "" then
      local lines = { "> _thinking_" }
      for _, l in ipairs(split(block.thinking)) do
        table.insert(lines, "> " .. l)
      end
      table.insert(out, { lines = lines, entry = id, fold = true, kind = "thinking" })
    elseif block.type == "text" and (block.text or "") ~= "" then
      table.insert(out, { lines = split(block.text), entry = id, kind = "text" })
    elseif block.type == "toolCall" then
      table.insert(out, {
        lines = { M.tool_line(block.name, block.arguments) },
        entry = id,
        kind = "tool",
        tool_call_id = block.id,
      })
    end
  end
  if message.stopReason == "error" or message.stopReason == "aborted" then
    local why = message.errorMessage or message.stopReason
    table.insert(out, { lines = { "_(" .. why .. ")_" }, entry = id, kind = "info" })
  end
end

--- Folded lines of a tool result (first line says what it is).
function M.result_piece(message, id)
  local text = M.content_text(message.content)
  local lines = { ("  ↳ %s result%s"):format(message.toolName or "tool", message.isError and " (error)" or "") }
  for _, l in ipairs(split(text)) do
    table.insert(lines, "    " .. l)
  end
  return { lines = lines, entry = id, fold = true, kind = "result", tool_call_id = message.toolCallId }
end

--- Pieces for one entry of pi/session/messages (a message, compaction, branch summary, …).
---@return pi_lsp.Piece[]
function M.entry(entry)
  local out = {}
  local id = entry.id
  if entry.type == "message" then
    local message = entry.message or {}
    local role = message.role
    if role == "user" then
      table.insert(out, { lines = { M.USER }, entry = id, kind = "user" })
      table.insert(out, { lines = split(M.content_text(message.content)), entry = id, kind = "text" })
    elseif role == "assistant" then
      assistant_pieces(message, id, out)
    elseif role == "toolResult" then
      table.insert(out, M.result_piece(message, id))
      return out -- no blank line: results sit under their call
    elseif role == "bashExecution" then
      local lines = { "## $ " .. (message.command or "") }
      for _, l in ipairs(split(message.output or "")) do
        table.insert(lines, "    " .. l)
      end
      table.insert(out, { lines = lines, entry = id, fold = true, kind = "result" })
    else
      table.insert(out, { lines = { "## " .. tostring(role) }, entry = id, kind = "info" })
      table.insert(out, { lines = split(M.content_text(message.content)), entry = id, kind = "text" })
    end
  elseif entry.type == "compaction" or entry.type == "branch_summary" then
    local title = entry.type == "compaction" and "### Compaction (earlier history summarized)"
      or "### Branch summary (of the branch left)"
    local lines = { title }
    vim.list_extend(lines, split(entry.summary or ""))
    table.insert(out, { lines = lines, entry = id, fold = true, kind = entry.type })
  elseif entry.type == "custom_message" then
    table.insert(out, { lines = split(M.content_text(entry.content)), entry = id, kind = "info" })
  else
    return out
  end
  table.insert(out, { lines = { "" }, entry = id, kind = "blank" })
  return out
end

--- All pieces of a messages result.
function M.entries(entries)
  local out = {}
  for _, entry in ipairs(entries or {}) do
    vim.list_extend(out, M.entry(entry))
  end
  return out
end

--- Fold levels for the lines of pieces, as foldexpr strings (">1" starts a fold).
function M.fold_levels(pieces)
  local levels = {}
  for _, piece in ipairs(pieces) do
    for i = 1, #piece.lines do
      if piece.fold then
        levels[#levels + 1] = i == 1 and ">1" or "1"
      else
        levels[#levels + 1] = "0"
      end
    end
  end
  return levels
end

return M
