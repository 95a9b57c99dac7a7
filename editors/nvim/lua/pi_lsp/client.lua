--- The daemon connection: finds the command, registers vim.lsp.config("pi_lsp"), enables it
--- for every file buffer under a project root, and wraps requests (empty params go out as a
--- JSON object, never as Lua's `{}` array).
local config = require("pi_lsp.config")
local M = {}

M.name = "pi_lsp"
M.handlers = {} ---@type table<string, fun(params: table)[]> pi/event listeners by "event"
M.last_error = nil ---@type string?

local function plugin_root()
  local source = debug.getinfo(1, "S").source:sub(2)
  return vim.fn.fnamemodify(source, ":h:h:h") -- editors/nvim
end

--- Where the daemon command is looked for, in order; the first that exists wins.
---@param root string? project root
---@return string[]? cmd, string[] tried
function M.resolve_cmd(root)
  local opts = config.options
  local tried = {}
  if opts.cmd then
    local exe = opts.cmd[1]
    table.insert(tried, "cmd option: " .. tostring(exe))
    if exe and vim.fn.executable(exe) == 1 then
      return opts.cmd, tried
    end
    return nil, tried
  end
  table.insert(tried, "pi-lsp on PATH")
  if vim.fn.executable("pi-lsp") == 1 then
    return { "pi-lsp", "--stdio" }, tried
  end
  local candidates = {}
  if root then
    table.insert(candidates, root .. "/.venv/bin/pi-lsp")
  end
  table.insert(candidates, vim.fn.getcwd() .. "/.venv/bin/pi-lsp")
  table.insert(candidates, vim.fs.normalize(plugin_root() .. "/../../.venv/bin/pi-lsp"))
  for _, path in ipairs(candidates) do
    table.insert(tried, path)
    if vim.fn.executable(path) == 1 then
      return { path, "--stdio" }, tried
    end
  end
  return nil, tried
end

--- The one message shown when the daemon cannot be found.
function M.not_found_message(tried)
  return table.concat({
    "pi_lsp: the daemon `pi-lsp` was not found (looked for: " .. table.concat(tried, ", ") .. ").",
    "Fix: install it (`pip install /path/to/pi_lsp` puts it on PATH; `make demo` in the pi_lsp",
    "checkout creates its .venv), or point the plugin at it:",
    'require("pi_lsp").setup({ cmd = { "/path/to/pi-lsp", "--stdio" } })',
  }, " ")
end

local function root_of(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == "" then
    return nil
  end
  return vim.fs.root(bufnr, config.options.root_markers)
end

--- The client capabilities: Neovim's, plus versioned documentChanges (handled by pi_lsp.edits).
function M.capabilities()
  local caps = vim.lsp.protocol.make_client_capabilities()
  caps.workspace.workspaceEdit = caps.workspace.workspaceEdit or {}
  caps.workspace.workspaceEdit.documentChanges = true
  caps.workspace.workspaceEdit.resourceOperations = { "create" }
  return caps
end

local function dispatch_event(_, params)
  local listeners = M.handlers[params and params.event and params.event.type or ""] or {}
  for _, fn in ipairs(listeners) do
    fn(params)
  end
  for _, fn in ipairs(M.handlers["*"] or {}) do
    fn(params)
  end
end

--- Listen to pi/event notifications of one event type ("*": all).
function M.on(kind, fn)
  M.handlers[kind] = M.handlers[kind] or {}
  table.insert(M.handlers[kind], fn)
end

--- The vim.lsp.config table for a command.
function M.lsp_config(cmd)
  local opts = config.options
  return {
    cmd = cmd,
    cmd_env = opts.cmd_env,
    root_dir = function(bufnr, on_dir)
      local root = root_of(bufnr)
      if root then
        on_dir(root)
      end
    end,
    capabilities = M.capabilities(),
    init_options = { pi = next(opts.settings) and opts.settings or vim.empty_dict() },
    flags = { debounce_text_changes = 50 },
    handlers = {
      ["workspace/applyEdit"] = require("pi_lsp.edits").handler,
      ["pi/requestPermission"] = require("pi_lsp.permission").handler,
      ["pi/event"] = dispatch_event,
      ["window/showMessage"] = function(err, result, ctx)
        local text = result and result.message or ""
        if text:find("setting%(s%) ignored") then
          local st = require("pi_lsp.state")
          st.settings_messages = st.settings_messages or {}
          table.insert(st.settings_messages, text)
        end
        return vim.lsp.handlers["window/showMessage"](err, result, ctx)
      end,
    },
  }
end

--- Register and enable the config. Returns false (after one clear message) when the daemon
--- command is missing.
function M.setup()
  local cmd, tried = M.resolve_cmd(vim.fs.root(0, config.options.root_markers))
  if not cmd then
    M.last_error = M.not_found_message(tried)
    vim.notify(M.last_error, vim.log.levels.ERROR)
    return false
  end
  M.last_error = nil
  M.cmd = cmd
  vim.lsp.config(M.name, M.lsp_config(cmd))
  vim.lsp.enable(M.name)
  -- files without a filetype never fire FileType, which vim.lsp.enable listens to
  vim.api.nvim_create_autocmd({ "BufReadPost", "BufNewFile" }, {
    group = vim.api.nvim_create_augroup("pi_lsp.attach", { clear = true }),
    callback = function(args)
      vim.schedule(function()
        if vim.api.nvim_buf_is_valid(args.buf) and vim.bo[args.buf].filetype == "" then
          pcall(vim.api.nvim_exec_autocmds, "FileType", { group = "nvim.lsp.enable", buffer = args.buf })
        end
      end)
    end,
  })
  return true
end

--- The running client (started for the current directory, unattached, when none runs yet).
---@return vim.lsp.Client?
function M.get()
  local clients = vim.lsp.get_clients({ name = M.name })
  local cwd = vim.fn.getcwd()
  for _, c in ipairs(clients) do
    if c.root_dir == cwd then
      return c
    end
  end
  if clients[1] then
    return clients[1]
  end
  if not M.cmd and not M.setup() then
    return nil
  end
  local cfg = vim.tbl_extend("force", M.lsp_config(M.cmd), { name = M.name })
  cfg.root_dir = vim.fs.root(0, config.options.root_markers) or cwd
  local id = vim.lsp.start(cfg, { attach = false })
  return id and vim.lsp.get_client_by_id(id) or nil
end

--- Params as a JSON object: nil or an empty table would go out as `[]`.
function M.params(tbl)
  if tbl == nil or next(tbl) == nil then
    return vim.empty_dict()
  end
  return tbl
end

--- Send a request; `cb(err, result)` runs on the main loop.
function M.request(method, params, cb)
  local client = M.get()
  if not client then
    cb({ message = M.last_error or "pi_lsp is not running" }, nil)
    return
  end
  client:request(method, M.params(params), function(err, result)
    cb(err, result)
  end)
end

--- Blocking request (for tests and health); returns result, err.
function M.request_sync(method, params, timeout)
  local client = M.get()
  if not client then
    return nil, { message = M.last_error or "pi_lsp is not running" }
  end
  local resp, err = client:request_sync(method, M.params(params), timeout or 10000)
  if not resp then
    return nil, { message = err or "timeout" }
  end
  return resp.result, resp.err
end

return M
