-- :checkhealth dldoctor
local M = {}

local function run(cmd, timeout_ms)
  local ok, handle = pcall(vim.system, cmd, { text = true })
  if not ok then
    return nil, tostring(handle)
  end
  local out = handle:wait(timeout_ms)
  if out.code ~= 0 then
    return nil, vim.trim((out.stderr or '') ~= '' and out.stderr or ('exit code ' .. tostring(out.code)))
  end
  return out.stdout or ''
end

function M.check()
  local health = vim.health
  health.start('dldoctor: Neovim')
  if vim.fn.has('nvim-0.11') == 1 then
    health.ok('Neovim ' .. tostring(vim.version()) .. ': vim.lsp.enable("dldoctor") reads lsp/dldoctor.lua')
  else
    health.warn(
      'Neovim ' .. tostring(vim.version()) .. ' has no vim.lsp.enable',
      { 'Upgrade to 0.11+, or start the server with vim.lsp.start({ name = "dldoctor", cmd = { "dldoctor", "lsp" } })' }
    )
  end

  health.start('dldoctor: server binary')
  local dldoctor = require('dldoctor')
  local found, missing = dldoctor.server_binary()
  if not found then
    health.error(missing, {
      dldoctor.install_hint,
      'Or point the config at it: vim.lsp.config("dldoctor", { cmd = { "/path/to/dldoctor", "lsp" } })',
    })
    return
  end
  local path = found.path
  local version, err = run({ path, '--version' }, 5000)
  if version then
    health.ok(vim.trim(version) .. ' at ' .. path .. ' (from ' .. found.source .. ')')
  else
    health.error(path .. ' --version failed: ' .. tostring(err))
    return
  end

  health.start('dldoctor: language server')
  local enabled = vim.lsp.is_enabled and vim.lsp.is_enabled('dldoctor')
  if enabled then
    health.ok('enabled for Python buffers')
  elseif vim.lsp.is_enabled then
    health.warn('not enabled', { 'Add vim.lsp.enable("dldoctor") to your config' })
  end
  local clients = vim.lsp.get_clients({ name = 'dldoctor' })
  if #clients == 0 then
    health.info('no dldoctor client running (it starts with the first Python buffer)')
  end
  for _, client in ipairs(clients) do
    local commands = vim.tbl_get(client.server_capabilities or {}, 'executeCommandProvider', 'commands') or {}
    health.ok(
      string.format(
        'client %d: root %s, position encoding %s, commands: %s',
        client.id,
        client.root_dir or '(none)',
        client.offset_encoding or '?',
        table.concat(commands, ', ')
      )
    )
  end

  health.start('dldoctor: this machine')
  local facts, env_err = run({ path, 'env' }, 5000)
  if facts then
    for _, line in ipairs(vim.split(vim.trim(facts), '\n', { plain = true })) do
      health.info(line)
    end
  else
    health.warn('dldoctor env failed: ' .. tostring(env_err))
  end

  health.start('dldoctor: explain')
  health.info(
    require('dldoctor').auto_explain_enabled() and 'auto-explain on: terminal jobs that exit non-zero are diagnosed'
      or 'auto-explain off (vim.g.dldoctor_auto_explain = true, or require("dldoctor").setup({ auto_explain = true }))'
  )
end

return M
