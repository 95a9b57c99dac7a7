--- :checkhealth pi_lsp
local M = {}

local PROVIDER_VARS = {
  "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "MISTRAL_API_KEY",
  "GROQ_API_KEY", "OPENROUTER_API_KEY", "DEEPSEEK_API_KEY", "XAI_API_KEY", "AZURE_API_KEY",
}

local function writable(dir)
  if vim.fn.isdirectory(dir) == 0 then
    local parent = vim.fn.fnamemodify(dir, ":h")
    while vim.fn.isdirectory(parent) == 0 and parent ~= "/" do
      parent = vim.fn.fnamemodify(parent, ":h")
    end
    return vim.fn.filewritable(parent) == 2, parent
  end
  return vim.fn.filewritable(dir) == 2, dir
end

function M.check()
  local h = vim.health
  h.start("pi_lsp: Neovim")
  if vim.fn.has("nvim-0.11") == 1 then
    h.ok("Neovim " .. tostring(vim.version()))
  else
    h.error("Neovim 0.11 or newer is needed (this is " .. tostring(vim.version()) .. ")")
  end

  h.start("pi_lsp: daemon")
  local client_mod = require("pi_lsp.client")
  local cmd, tried = client_mod.resolve_cmd(vim.fs.root(0, require("pi_lsp.config").options.root_markers))
  if not cmd then
    h.error(client_mod.not_found_message(tried))
    return
  end
  h.ok("command: " .. table.concat(cmd, " "))
  local out = vim.system({ cmd[1], "--version" }, { text = true }):wait(10000)
  if out.code == 0 then
    h.ok("version: " .. vim.trim(out.stdout or ""))
  else
    h.warn("`" .. cmd[1] .. " --version` failed: " .. vim.trim((out.stderr or "") .. (out.stdout or "")))
  end
  local c = client_mod.get()
  if not c then
    h.error("the daemon did not start: " .. tostring(client_mod.last_error))
    return
  end
  local ok = vim.wait(10000, function() return c.initialized end, 20)
  if ok and c.server_info then
    h.ok(("initialize round trip: %s %s"):format(c.server_info.name or "?", c.server_info.version or "?"))
  elseif ok then
    h.ok("initialize round trip")
  else
    h.error("initialize did not finish within 10 s (see :LspLog)")
  end
  local messages = require("pi_lsp.state").settings_messages or {}
  if #messages == 0 then
    h.ok("settings: no problems reported by the daemon")
  else
    for _, m in ipairs(messages) do
      h.warn("settings: " .. m)
    end
  end

  h.start("pi_lsp: directories")
  local agent = vim.env.PI_CODING_AGENT_DIR or (vim.env.HOME .. "/.pi/agent")
  for _, dir in ipairs({ agent, agent .. "/sessions" }) do
    local w, at = writable(dir)
    if w then
      h.ok(dir .. " is writable" .. (at ~= dir and (" (created on first use in " .. at .. ")") or ""))
    else
      h.error(dir .. " is not writable (checked " .. at .. ")")
    end
  end

  h.start("pi_lsp: provider variables")
  local found = {}
  for _, name in ipairs(PROVIDER_VARS) do
    if vim.env[name] and vim.env[name] ~= "" then
      table.insert(found, name)
    end
  end
  if #found > 0 then
    h.ok("set: " .. table.concat(found, ", "))
  else
    h.warn("no provider key variable is set (" .. table.concat(PROVIDER_VARS, ", ") .. "); a local apiBase may not need one")
  end
end

return M
