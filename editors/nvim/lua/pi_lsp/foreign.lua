--- Entries another program (the pi CLI takes no lock) appended while this daemon's turn ran
--- (the foreign_entries event). They hang beside the turn, on a sibling branch, so the chat
--- (the path to the leaf) does not show them: it shows a note naming them instead. Pure (no
--- buffers, unit-tested): the note's pieces, and where notes go when the chat is rendered again.
local tree = require("pi_lsp.tree")

local M = {}

M.MAX = 5 --- entries listed by name; the rest are counted

---@class pi_lsp.ForeignNote
---@field after string entry id the note follows (the daemon's leaf when it was sent)
---@field pieces pi_lsp.Piece[]

--- The note for one foreign_entries event. Its first line says how many entries and how to see
--- them; then one line per entry (as the tree names it) that carries that entry's id, so `gb`
--- on it switches to their branch. The header carries the last entry (the tip of their branch).
---@param event pi_lsp.ForeignEntries
---@param nodes table<string, table> TreeNodes by id (entry_appended), possibly missing some
---@return pi_lsp.ForeignNote
function M.note(event, nodes)
  local ids = event.entryIds or {}
  local count = #ids
  local header = ("_(another program added %d %s during this turn, on a sibling branch: not shown"
    .. " here; `:Pi tree` shows them, `gb` on a line below switches to that branch)_")
    :format(count, count == 1 and "entry" or "entries")
  local pieces = { { lines = { header }, entry = ids[count], kind = "info" } }
  for i = 1, math.min(count, M.MAX) do
    local node = nodes[ids[i]]
    local text = node and tree.node_text(node, false) or ("entry " .. ids[i])
    table.insert(pieces, { lines = { "  · " .. text:gsub("\n", " ") }, entry = ids[i], kind = "info" })
  end
  if count > M.MAX then
    local more = ("  · … and %d more"):format(count - M.MAX)
    table.insert(pieces, { lines = { more }, entry = ids[count], kind = "info" })
  end
  table.insert(pieces, { lines = { "" }, entry = ids[count], kind = "blank" })
  local leaf = event.leafId ~= vim.NIL and event.leafId or nil
  return { after = leaf, pieces = pieces }
end

--- The pieces with each note placed after the last piece of the entry it follows; a note whose
--- entry is not on the rendered path (the user went to another branch) is left out.
---@param pieces pi_lsp.Piece[]
---@param notes pi_lsp.ForeignNote[]
---@return pi_lsp.Piece[]
function M.place(pieces, notes)
  if #notes == 0 then
    return pieces -- the usual case: a session nobody else wrote to during a turn here
  end
  local last = {} --- entry id → index of its last piece
  for i, piece in ipairs(pieces) do
    if piece.entry then
      last[piece.entry] = i
    end
  end
  local after = {} --- piece index → notes to put after it, in order
  for _, note in ipairs(notes) do
    local at = note.after and last[note.after]
    if at then
      after[at] = after[at] or {}
      table.insert(after[at], note)
    end
  end
  local out = {}
  for i, piece in ipairs(pieces) do
    table.insert(out, piece)
    for _, note in ipairs(after[i] or {}) do
      vim.list_extend(out, note.pieces)
    end
  end
  return out
end

return M
