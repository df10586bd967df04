-- dldoctor for Neovim: the language server config lives in lsp/dldoctor.lua; this module holds
-- the plugin's own options.
local M = {}

---@class dldoctor.Options
---@field auto_explain boolean diagnose a :terminal job that exits non-zero
---@field open_quickfix boolean open the quickfix window after a diagnosis with frames
---@field float boolean show the diagnosis in a floating window
---@field max_bytes integer how much of a terminal or log file to read, from the end
M.options = {
  auto_explain = false,
  open_quickfix = true,
  float = true,
  max_bytes = 4 * 1024 * 1024,
}

---@param opts dldoctor.Options|nil
function M.setup(opts)
  M.options = vim.tbl_deep_extend('force', M.options, opts or {})
end

--- `vim.g.dldoctor_auto_explain` wins over setup(), so a plain config needs no setup() call.
function M.auto_explain_enabled()
  if vim.g.dldoctor_auto_explain ~= nil then
    return vim.g.dldoctor_auto_explain == true or vim.g.dldoctor_auto_explain == 1
  end
  return M.options.auto_explain == true
end

local function executable_name()
  return vim.fn.has('win32') == 1 and 'dldoctor.exe' or 'dldoctor'
end

--- The `dldoctor` found without configuration: the active virtual environment's (where
--- `pip install dldoctor` puts it), then PATH. Returns { path, source } or nil.
---@param env table|nil environment variables to read instead of the editor's (for tests)
function M.find_binary(env)
  env = env or { VIRTUAL_ENV = vim.env.VIRTUAL_ENV, PATH = vim.env.PATH }
  local name = executable_name()
  local venv = env.VIRTUAL_ENV
  if venv and venv ~= '' then
    local candidate = vim.fs.joinpath(venv, vim.fn.has('win32') == 1 and 'Scripts' or 'bin', name)
    if vim.fn.executable(candidate) == 1 then
      return { path = candidate, source = '$VIRTUAL_ENV' }
    end
  end
  local separator = vim.fn.has('win32') == 1 and ';' or ':'
  for dir in vim.gsplit(env.PATH or '', separator, { plain = true }) do
    local candidate = dir ~= '' and vim.fs.joinpath(dir, name)
    if candidate and vim.fn.executable(candidate) == 1 then
      return { path = candidate, source = 'PATH' }
    end
  end
  return nil
end

M.install_hint = 'Install it into your Python environment: pip install dldoctor (or: cargo install dldoctor)'

--- The binary the server runs, in the documented order: the `cmd` given to vim.lsp.config, else
--- find_binary(). Returns { path, source }, or nil and a message saying what to do.
function M.server_binary()
  local cmd = M.server_cmd()
  local found = M.find_binary()
  local configured = cmd[1]
  if configured ~= 'dldoctor' and not (found and configured == found.path) then
    local path = vim.fn.exepath(configured)
    if path == '' then
      return nil, configured .. ' (the cmd given to vim.lsp.config) is not an executable'
    end
    return { path = path, source = 'vim.lsp.config cmd' }
  end
  if found then
    return found
  end
  return nil, 'no dldoctor binary: none in $VIRTUAL_ENV, none on PATH'
end

--- The server binary: the first word of the configured `cmd`, else `dldoctor`.
function M.server_cmd()
  local ok, config = pcall(function()
    return vim.lsp.config and vim.lsp.config.dldoctor
  end)
  if ok and type(config) == 'table' and type(config.cmd) == 'table' and config.cmd[1] then
    return config.cmd
  end
  return { 'dldoctor', 'lsp' }
end

return M
