--- The session tree model (pure, unit-tested): nodes of pi/session/tree, kept current with
--- entry_appended, laid out as indented lines (a branch point indents its children).
local M = {}

---@class pi_lsp.TreeModel
---@field nodes table<string, pi_lsp.TreeNode> by id
---@field order string[] ids in file order
---@field leaf string?

--- A model from a pi/session/tree result.
---@param result pi_lsp.PiSessionTreeResult
---@return pi_lsp.TreeModel
function M.new(result)
  local model = { nodes = {}, order = {}, leaf = result.leafId ~= vim.NIL and result.leafId or nil }
  for _, node in ipairs(result.nodes or {}) do
    local copy = vim.deepcopy(node)
    copy.children = vim.list_slice(node.children or {})
    model.nodes[node.id] = copy
    table.insert(model.order, node.id)
  end
  return model
end

--- Add an appended entry (an entry_appended TreeNode); a known id is replaced.
function M.add(model, node)
  local known = model.nodes[node.id]
  local copy = vim.deepcopy(node)
  copy.children = known and known.children or vim.list_slice(node.children or {})
  model.nodes[node.id] = copy
  if not known then
    table.insert(model.order, node.id)
    local parent = node.parentId ~= vim.NIL and model.nodes[node.parentId] or nil
    if parent and not vim.tbl_contains(parent.children, node.id) then
      table.insert(parent.children, node.id)
    end
  end
end

--- Ids on the path from the root to the leaf.
function M.active(model)
  local on = {}
  local id = model.leaf
  local guard = 0
  while id and model.nodes[id] and not on[id] and guard <= #model.order do
    on[id] = true
    local parent = model.nodes[id].parentId
    id = parent ~= vim.NIL and parent or nil
    guard = guard + 1
  end
  return on
end

local KIND = {
  compaction = "[compaction] ",
  branch_summary = "[branch summary] ",
}
local ROLE = { user = "you: ", assistant = "pi: ", toolResult = "↳ " }

--- The text of one node's line (without indentation).
function M.node_text(node, is_leaf)
  local label = node.label ~= vim.NIL and node.label or nil
  local prefix = KIND[node.type] or (node.role ~= vim.NIL and ROLE[node.role]) or ""
  local text = (is_leaf and "● " or "") .. prefix .. (node.preview or "")
  if label then
    text = text .. "  [" .. label .. "]"
  end
  return text
end

--- Lines of the whole tree: returns lines, ids (per line) and flags (per line: active, leaf).
function M.lines(model)
  local on = M.active(model)
  local lines, ids, flags = {}, {}, {}
  local roots = {}
  for _, id in ipairs(model.order) do
    local node = model.nodes[id]
    local parent = node.parentId
    if parent == nil or parent == vim.NIL or not model.nodes[parent] then
      table.insert(roots, id)
    end
  end
  local stack = {}
  for i = #roots, 1, -1 do
    table.insert(stack, { roots[i], #roots > 1 and 1 or 0, #roots > 1 })
  end
  while #stack > 0 do
    local item = table.remove(stack)
    local id, depth, branch = item[1], item[2], item[3]
    local node = model.nodes[id]
    local indent = string.rep("  ", depth) .. (branch and "├ " or "")
    table.insert(lines, indent .. M.node_text(node, id == model.leaf))
    table.insert(ids, id)
    table.insert(flags, { active = on[id] == true, leaf = id == model.leaf })
    local children = node.children or {}
    local many = #children > 1
    for i = #children, 1, -1 do
      if model.nodes[children[i]] then
        table.insert(stack, { children[i], many and depth + 1 or depth, many })
      end
    end
  end
  return lines, ids, flags
end

return M
