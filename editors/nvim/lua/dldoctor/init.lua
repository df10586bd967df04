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
