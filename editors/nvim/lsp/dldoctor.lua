-- dldoctor language server, for `vim.lsp.enable("dldoctor")` (Neovim 0.11+).
-- Override any field with `vim.lsp.config("dldoctor", { ... })`; settings go under
-- `settings.dldoctor` and reach the server both as initializationOptions and through
-- workspace/configuration (section "dldoctor").
---@type vim.lsp.Config
return {
  -- The active virtual environment's dldoctor (pip install dldoctor), else the one on PATH.
  cmd = { (require('dldoctor').find_binary() or { path = 'dldoctor' }).path, 'lsp' },
  filetypes = { 'python' },
  root_markers = { 'pyproject.toml', 'setup.py', 'setup.cfg', 'requirements.txt', '.git' },
  settings = {
    -- select, ignore, severity, maxWorkers, assumeCpus, assumeShm, kb, locale
    dldoctor = vim.empty_dict(),
  },
  before_init = function(params, config)
    if params.initializationOptions ~= nil then
      return
    end
    local settings = (config.settings or {}).dldoctor
    if type(settings) ~= 'table' or next(settings) == nil then
      -- An empty Lua table would go out as a JSON array.
      settings = vim.empty_dict()
    end
    params.initializationOptions = settings
  end,
}
