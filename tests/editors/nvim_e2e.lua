-- Neovim end to end, headless: the real dldoctor server through vim.lsp.enable, diagnostics on a
-- fixture, a quick fix applied, a :terminal printing a recorded PyTorch crash explained into the
-- quickfix list and a float, auto-explain on a failed terminal job, and :checkhealth dldoctor.
--
--   DLDOCTOR_ROOT=. DLDOCTOR_BIN=target/release/dldoctor nvim --headless --clean -l tests/editors/nvim_e2e.lua
local root = assert(os.getenv('DLDOCTOR_ROOT'), 'DLDOCTOR_ROOT is not set')
local bin = assert(os.getenv('DLDOCTOR_BIN'), 'DLDOCTOR_BIN is not set')
local WAIT_MS = 15000

local passed, failed = 0, 0
local function check(ok, what, detail)
  if ok then
    passed = passed + 1
    io.stdout:write('ok - ' .. what .. '\n')
  else
    failed = failed + 1
    io.stdout:write('not ok - ' .. what .. (detail and (': ' .. detail) or '') .. '\n')
  end
  return ok
end

local function finish()
  for _, client in ipairs(vim.lsp.get_clients()) do
    client:stop(true)
  end
  io.stdout:write(string.format('nvim: %d passed, %d failed\n', passed, failed))
  os.exit(failed == 0 and passed > 0 and 0 or 1)
end

-- Notifications are kept (and checked) instead of going to headless Neovim's message line.
local notifications = {}
vim.notify = function(msg)
  table.insert(notifications, msg)
  io.stdout:write('notify: ' .. msg .. '\n')
end

local function read(path)
  local f = assert(io.open(path, 'rb'))
  local text = f:read('*a')
  f:close()
  return text
end

local function write(path, text)
  local f = assert(io.open(path, 'wb'))
  f:write(text)
  f:close()
end

-- A copy of the fixture project: fixes are applied to it.
local fixtures = root .. '/tests/editors/fixtures'
local work = vim.fn.resolve(vim.fn.tempname())
vim.fn.mkdir(work .. '/recorded', 'p')
for _, name in ipairs({ 'project/train.py', 'project/risky.py', 'replay_crash.py', 'recorded/persistent_workers.txt' }) do
  write(work .. '/' .. name:gsub('^project/', ''), read(fixtures .. '/' .. name))
end
write(work .. '/pyproject.toml', '[project]\nname = "fixture"\n')
vim.cmd.cd(work)

vim.opt.runtimepath:prepend(root .. '/editors/nvim')
vim.cmd('filetype on')
vim.cmd('runtime! plugin/dldoctor.lua')
-- 'columns' stays at headless Neovim's 80: changing it there corrupts memory (0.11.4). The
-- terminal therefore wraps the traceback's long lines, which :DldoctorExplain joins back.

vim.lsp.config('dldoctor', {
  cmd = { bin, 'lsp' },
  -- Host facts fixed so the result does not depend on this machine; one CPU makes DL201 fire
  -- on num_workers=2, which shows the settings reach the server.
  settings = { dldoctor = { assumeCpus = 1, assumeShm = '8G' } },
})
vim.lsp.enable('dldoctor')

local function dldoctor_client(bufnr)
  return vim.lsp.get_clients({ bufnr = bufnr, name = 'dldoctor' })[1]
end

local function diagnostics_with(bufnr, predicate)
  return vim.tbl_filter(predicate, vim.diagnostic.get(bufnr))
end

local function code_of(d)
  return d.code or vim.tbl_get(d, 'user_data', 'lsp', 'code')
end

--- Code actions at a diagnostic, linked to it, without the "ignore" ones.
local function fixes_for(bufnr, client, diagnostic)
  local lsp_diagnostic = vim.tbl_get(diagnostic, 'user_data', 'lsp')
  local params = {
    textDocument = vim.lsp.util.make_text_document_params(bufnr),
    range = lsp_diagnostic.range,
    context = { diagnostics = { lsp_diagnostic }, only = { 'quickfix' } },
  }
  local responses = vim.lsp.buf_request_sync(bufnr, 'textDocument/codeAction', params, WAIT_MS) or {}
  local actions = {}
  for _, response in pairs(responses) do
    for _, action in ipairs(response.result or {}) do
      local title = action.title or ''
      if not title:lower():match('^ignore') and not title:match('noqa') then
        if action.edit == nil and action.data ~= nil then
          local resolved = client:request_sync('codeAction/resolve', action, WAIT_MS, bufnr)
          action = resolved and resolved.result or action
        end
        table.insert(actions, action)
      end
    end
  end
  table.sort(actions, function(a, b)
    return (a.isPreferred and 1 or 0) > (b.isPreferred and 1 or 0)
  end)
  return actions
end

local function apply(action, client)
  if action.edit then
    vim.lsp.util.apply_workspace_edit(action.edit, client.offset_encoding)
  end
  if action.command then
    client:request_sync('workspace/executeCommand', action.command, WAIT_MS)
  end
end

-- 1. Diagnostics on a risky file, and the quick fix that removes the argument.
vim.cmd.edit(work .. '/risky.py')
local risky = vim.api.nvim_get_current_buf()
check(vim.bo[risky].filetype == 'python', 'risky.py is a python buffer')
check(vim.wait(WAIT_MS, function()
  return dldoctor_client(risky) ~= nil
end, 50), 'dldoctor attaches to risky.py through vim.lsp.enable')
local client = dldoctor_client(risky)
if not client then
  finish()
end
check(client.offset_encoding == 'utf-8', 'the server chose utf-8 positions', client.offset_encoding)
local commands = vim.tbl_get(client.server_capabilities, 'executeCommandProvider', 'commands') or {}
check(vim.tbl_contains(commands, 'dldoctor.explain'), 'the server lists dldoctor.explain', vim.inspect(commands))

local function dl301()
  return diagnostics_with(risky, function(d)
    return code_of(d) == 'DL301'
  end)
end
check(vim.wait(WAIT_MS, function()
  return #dl301() > 0
end, 50), 'DL301 on prefetch_factor without workers', vim.inspect(vim.diagnostic.get(risky)))
local d201 = diagnostics_with(risky, function(d)
  return code_of(d) == 'DL201'
end)[1]
check(
  d201 ~= nil and d201.lnum == 8 and d201.severity == vim.diagnostic.severity.WARN,
  'DL201 on num_workers=2 with assumeCpus = 1 from the settings',
  vim.inspect(vim.diagnostic.get(risky))
)
local d301 = dl301()[1]
if d301 then
  check(d301.lnum == 4 and d301.source == 'dldoctor', 'DL301 sits on line 5, source dldoctor', vim.inspect(d301))
  check(d301.severity == vim.diagnostic.severity.ERROR, 'DL301 is an error')
  local actions = fixes_for(risky, client, d301)
  check(#actions > 0, 'a quick fix is offered for DL301')
  if actions[1] then
    apply(actions[1], client)
    local line = vim.api.nvim_buf_get_lines(risky, 4, 5, false)[1]
    check(
      line == '    return DataLoader(dataset, batch_size=32, num_workers=0)',
      'the quick fix removes prefetch_factor',
      line
    )
    check(vim.wait(WAIT_MS, function()
      return #dl301() == 0
    end, 50), 'DL301 goes away after the fix')
  end
end

-- 2. A :terminal prints a recorded crash; :DldoctorExplain fills the quickfix list and a float.
local exited = {}
vim.api.nvim_create_autocmd('TermClose', {
  callback = function(args)
    exited[args.buf] = vim.v.event.status
  end,
})
vim.cmd('botright new')
vim.cmd.terminal('python3 replay_crash.py recorded/persistent_workers.txt')
local term = vim.api.nvim_get_current_buf()
check(vim.wait(WAIT_MS, function()
  return exited[term] ~= nil
end, 50), 'the crash replay ran in a :terminal')
check(exited[term] == 1, 'it exited 1', tostring(exited[term]))
vim.cmd('DldoctorExplain')
check(vim.wait(WAIT_MS, function()
  return #vim.fn.getqflist() > 0
end, 50), ':DldoctorExplain fills the quickfix list')
local qf = vim.fn.getqflist()
local first = qf[1]
if first then
  check(vim.api.nvim_buf_get_name(first.bufnr) == work .. '/train.py', 'the first entry is in train.py', vim.inspect(first))
  check(first.lnum == 7, "the first entry is the user's DataLoader line", tostring(first.lnum))
  check(first.type == 'E', 'the first entry is an error')
  check(qf[2] ~= nil and qf[2].lnum == 13, 'the caller frame follows (line 13)', vim.inspect(qf[2]))
end
check(vim.fn.getqflist({ title = 0 }).title == 'dldoctor explain', 'the quickfix list is titled')
check(
  notifications[#notifications] == 'dldoctor: persistent_workers=True on a loader without workers',
  'a notification names the failure',
  notifications[#notifications]
)
local explain = require('dldoctor.explain')
local float = explain.last and explain.last.float_win
check(float ~= nil and vim.api.nvim_win_is_valid(float), 'a floating window shows the diagnosis')
if float and vim.api.nvim_win_is_valid(float) then
  local text = table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(float), 0, -1, false), '\n')
  check(text:match('## Cause') ~= nil, 'the float has the cause', text)
  check(text:match('train%.py:7') ~= nil, "the float names the user's line", text)
  vim.api.nvim_win_close(float, true)
end

-- 3. The server placed the diagnosis on the user's line, with the rule's fix.
local train = vim.fn.bufadd(work .. '/train.py')
vim.fn.bufload(train)
local function placed()
  return diagnostics_with(train, function(d)
    return d.source == 'dldoctor-explain'
  end)
end
check(vim.wait(WAIT_MS, function()
  return #placed() > 0
end, 50), 'the diagnosis appears as a diagnostic in train.py')
local diagnosis = placed()[1]
if diagnosis then
  check(diagnosis.lnum == 6, "on the user's DataLoader line", tostring(diagnosis.lnum))
  vim.cmd.buffer(train)
  check(vim.wait(WAIT_MS, function()
    return dldoctor_client(train) ~= nil
  end, 50), 'dldoctor attaches to train.py')
  local fixes = fixes_for(train, client, placed()[1])
  check(#fixes > 0, 'the diagnosis offers the static rule fix')
  if fixes[1] then
    apply(fixes[1], client)
    local line = vim.api.nvim_buf_get_lines(train, 6, 7, false)[1]
    check(line:match('persistent_workers') == nil, 'the fix removes persistent_workers', line)
  end
end

-- 4. Auto-explain when a terminal job exits non-zero.
vim.fn.setqflist({}, 'r', { title = 'cleared', items = {} })
vim.g.dldoctor_auto_explain = true
vim.cmd('botright new')
vim.cmd.terminal('python3 replay_crash.py recorded/persistent_workers.txt')
check(vim.wait(WAIT_MS, function()
  return #vim.fn.getqflist() > 0 and vim.fn.getqflist({ title = 0 }).title == 'dldoctor explain'
end, 50), 'auto-explain fills the quickfix list when the job exits 1')
vim.g.dldoctor_auto_explain = false

-- 5. Wrapped terminal rows are joined back.
check(
  vim.deep_equal(explain.unwrap({ 'abc', 'de', 'xyz', 'w' }, 3), { 'abcde', 'xyzw' }),
  'terminal rows that fill the width are joined'
)

-- 6. Explaining a log file without a running server uses the CLI.
for _, c in ipairs(vim.lsp.get_clients({ name = 'dldoctor' })) do
  c:stop(true)
end
vim.wait(WAIT_MS, function()
  return #vim.lsp.get_clients({ name = 'dldoctor' }) == 0
end, 50)
vim.lsp.enable('dldoctor', false)
vim.fn.setqflist({}, 'r', { title = 'cleared', items = {} })
local log = work .. '/crash.log'
write(log, (read(work .. '/recorded/persistent_workers.txt'):gsub('@PROJECT@', work)))
vim.cmd('DldoctorExplain ' .. log)
check(vim.wait(WAIT_MS, function()
  return vim.fn.getqflist({ title = 0 }).title == 'dldoctor explain' and #vim.fn.getqflist() > 0
end, 50), ':DldoctorExplain FILE works through the CLI with no server running')

-- 7. :checkhealth dldoctor
vim.cmd('silent checkhealth dldoctor')
local report = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
check(report:match('dldoctor: server binary') ~= nil, ':checkhealth dldoctor runs', report)
check(report:match('dldoctor %d+%.%d+%.%d+ at .* %(from vim%.lsp%.config cmd%)') ~= nil, ':checkhealth names the binary, its version and where it came from', report)
check(report:match('ERROR') == nil, ':checkhealth dldoctor reports no error', report)

-- 8. Finding the binary without configuration: the virtual environment's, then PATH.
local dldoctor = require('dldoctor')
local venv = work .. '/venv'
local path_dir = work .. '/path-bin'
for _, dir in ipairs({ venv .. '/bin', path_dir, work .. '/empty-venv/bin' }) do
  vim.fn.mkdir(dir, 'p')
end
vim.uv.fs_symlink(bin, venv .. '/bin/dldoctor')
vim.uv.fs_symlink(bin, path_dir .. '/dldoctor')
local found = dldoctor.find_binary({ VIRTUAL_ENV = venv, PATH = path_dir })
check(found and found.source == '$VIRTUAL_ENV' and found.path == venv .. '/bin/dldoctor', 'the virtual environment comes before PATH', vim.inspect(found))
found = dldoctor.find_binary({ VIRTUAL_ENV = work .. '/empty-venv', PATH = work .. '/empty-venv/bin:' .. path_dir })
check(found and found.source == 'PATH' and found.path == path_dir .. '/dldoctor', 'PATH when the environment has none', vim.inspect(found))
check(dldoctor.find_binary({ PATH = work .. '/empty-venv/bin' }) == nil, 'nothing found is nil')

vim.lsp.config('dldoctor', { cmd = { 'dldoctor', 'lsp' } })
local saved_path = vim.env.PATH
vim.env.VIRTUAL_ENV, vim.env.PATH = nil, work .. '/empty-venv/bin'
vim.cmd('silent checkhealth dldoctor')
report = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
vim.env.PATH = saved_path
check(report:match('pip install dldoctor') ~= nil, ':checkhealth gives the install command when no binary is found', report)

finish()
