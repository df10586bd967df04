-- :DldoctorExplain: sends crash output (a :terminal buffer, a range, or a log file) to the
-- dldoctor server's `dldoctor.explain` command (or, with no server running, to
-- `dldoctor explain --format json`), then fills the quickfix list with the user's frames and
-- shows the diagnosis in a floating window.
local M = {}

local EXPLAIN = 'dldoctor.explain'
local QF_TITLE = 'dldoctor explain'

--- The last diagnosis: { result, items, cwd, source, float_buf, float_win }.
M.last = nil

local function options()
  return require('dldoctor').options
end

local function notify(msg, level)
  vim.notify('dldoctor: ' .. msg, level or vim.log.levels.INFO)
end

local function tail(text, max_bytes)
  if #text > max_bytes then
    return text:sub(#text - max_bytes + 1)
  end
  return text
end

--- Width of the pty behind a terminal buffer: the narrowest window showing it, as Neovim sizes
--- the pty. nil when no window shows it.
local function terminal_width(bufnr)
  local width
  for _, win in ipairs(vim.fn.win_findbuf(bufnr)) do
    local info = vim.fn.getwininfo(win)[1]
    if info then
      local text_width = info.width - info.textoff
      width = width and math.min(width, text_width) or text_width
    end
  end
  return width
end

--- A terminal buffer holds screen rows: a long line wraps into rows that fill the width
--- exactly. Joins such rows back into the line the program printed.
function M.unwrap(lines, width)
  if not width or width <= 0 then
    return lines
  end
  local out = {}
  local pending = nil
  for _, line in ipairs(lines) do
    local joined = pending and (pending .. line) or line
    if vim.fn.strdisplaywidth(line) == width then
      pending = joined
    else
      table.insert(out, joined)
      pending = nil
    end
  end
  if pending then
    table.insert(out, pending)
  end
  return out
end

--- The directory a terminal's job runs in (for relative paths in tracebacks).
local function terminal_cwd(bufnr)
  local job = vim.b[bufnr].terminal_job_id
  if job then
    local ok, pid = pcall(vim.fn.jobpid, job)
    if ok and type(pid) == 'number' and pid > 0 then
      local cwd = vim.uv.fs_readlink('/proc/' .. pid .. '/cwd')
      if cwd then
        return cwd
      end
    end
  end
  return vim.b[bufnr].dldoctor_cwd or vim.fn.getcwd()
end

local function is_absolute(file)
  return file:sub(1, 1) == '/' or file:match('^%a:[\\/]') ~= nil
end

local function resolve(file, cwd)
  if is_absolute(file) or not cwd then
    return file
  end
  return vim.fs.joinpath(cwd, file)
end

local function user_frames(finding)
  local frames = {}
  for _, frame in ipairs(finding.frames or {}) do
    if frame.user and type(frame.file) == 'string' and type(frame.line) == 'number' and frame.line > 0 then
      table.insert(frames, frame)
    end
  end
  return frames
end

--- Quickfix items: per finding, the innermost user frame (the line to change) first, then the
--- user frames that called it; a finding without user frames still gets a line with its title.
function M.quickfix_items(result, cwd)
  local items = {}
  for _, finding in ipairs(result.findings or {}) do
    local title = string.format('%s [%s]', finding.title, finding.id)
    local frames = user_frames(finding)
    if #frames == 0 then
      table.insert(items, { text = title, type = 'E', valid = 0 })
    end
    for i = #frames, 1, -1 do
      local frame = frames[i]
      local innermost = i == #frames
      table.insert(items, {
        filename = resolve(frame.file, cwd),
        lnum = frame.line,
        col = 1,
        type = innermost and 'E' or 'I',
        text = innermost and title
          or string.format('called from %s here: %s', frame['function'] or '?', finding.title),
      })
    end
  end
  return items
end

local function advice_text(advice, dead_end)
  if type(advice) == 'string' then
    return advice
  end
  if type(advice) ~= 'table' then
    return nil
  end
  local parts = { vim.trim(advice.action or '') }
  local detail = vim.trim((dead_end and advice.why_fails or advice.how) or '')
  if detail ~= '' and detail ~= parts[1] then
    table.insert(parts, '— ' .. detail)
  end
  local condition = vim.trim(advice.condition or '')
  if condition ~= '' then
    table.insert(parts, '(when: ' .. condition .. ')')
  end
  local text = vim.trim(table.concat(parts, ' '))
  return text ~= '' and text or nil
end

--- A markdown section listing advice (workarounds, or dead ends); nothing when the list is empty.
local function add_advice(add, heading, bullet, list, dead_end)
  local texts = {}
  for _, advice in ipairs(list or {}) do
    table.insert(texts, advice_text(advice, dead_end))
  end
  if #texts == 0 then
    return
  end
  add(heading, '')
  for _, text in ipairs(texts) do
    add(bullet .. text)
  end
  add('')
end

local function split_lines(text)
  return vim.split(vim.trim(text), '\n', { plain = true })
end

--- The diagnosis as markdown lines: cause, what fixes it, what does not, the user's line.
function M.markdown(result)
  local lines = {}
  local function add(...)
    for _, l in ipairs({ ... }) do
      table.insert(lines, l)
    end
  end
  local findings = result.findings or {}
  if #findings == 0 then
    return { '# dldoctor', '', 'No known DataLoader failure found in this output.' }
  end
  for n, finding in ipairs(findings) do
    if n > 1 then
      add('', '---', '')
    end
    add('# ' .. finding.title, '', 'Knowledge-base entry `' .. finding.id .. '`', '')
    if type(finding.matched) == 'string' and finding.matched ~= '' then
      add('```text', finding.matched, '```', '')
    end
    local frames = user_frames(finding)
    local frame = frames[#frames]
    if frame then
      add(string.format('**Your code:** `%s:%d` in `%s`', frame.file, frame.line, frame['function'] or '?'), '')
    end
    if type(finding.root_cause) == 'string' and finding.root_cause ~= '' then
      add('## Cause', '')
      add(unpack(split_lines(finding.root_cause)))
      add('')
    end
    add_advice(add, '## What fixes it', '- ', finding.workarounds, false)
    add_advice(add, '## What does not', "- Don't: ", finding.dead_ends, true)
    if type(finding.rules) == 'table' and #finding.rules > 0 then
      add('Rules that catch this before it runs: `' .. table.concat(finding.rules, '`, `') .. '`')
    end
  end
  while lines[#lines] == '' do
    table.remove(lines)
  end
  return lines
end

local function show(result, context)
  local items = M.quickfix_items(result, context.cwd)
  M.last = { result = result, items = items, cwd = context.cwd, source = context.source }
  if #(result.findings or {}) == 0 then
    if not context.quiet then
      notify('no known DataLoader failure in this output')
    end
    return
  end
  vim.fn.setqflist({}, ' ', { title = QF_TITLE, items = items })
  local opts = options()
  if opts.open_quickfix then
    local win = vim.api.nvim_get_current_win()
    vim.cmd('botright copen')
    vim.api.nvim_set_current_win(win)
  end
  if opts.float then
    local buf, win = vim.lsp.util.open_floating_preview(M.markdown(result), 'markdown', {
      border = 'rounded',
      focus_id = 'dldoctor_explain',
      max_width = math.max(40, math.floor(vim.o.columns * 0.8)),
      max_height = math.max(10, math.floor(vim.o.lines * 0.6)),
    })
    M.last.float_buf, M.last.float_win = buf, win
  end
  notify(result.findings[1].title, vim.log.levels.WARN)
end

local function dldoctor_client(bufnr)
  local clients = vim.lsp.get_clients({ name = 'dldoctor' })
  for _, client in ipairs(clients) do
    if client.attached_buffers[bufnr] then
      return client
    end
  end
  return clients[1]
end

local function decode_cli_output(stdout)
  local ok, decoded = pcall(vim.json.decode, stdout, { luanil = { object = true, array = true } })
  if ok and type(decoded) == 'table' then
    return decoded
  end
  return nil
end

--- Without a running server: `dldoctor explain --format json -` (exit 0 found, 1 none, 2 error).
local function explain_with_cli(text, context)
  local dldoctor = require('dldoctor')
  local found, missing = dldoctor.server_binary()
  if not found then
    notify(missing .. '. ' .. dldoctor.install_hint, vim.log.levels.ERROR)
    return
  end
  local cmd = { found.path }
  local args = { cmd[1], 'explain', '--format', 'json' }
  if context.cwd then
    vim.list_extend(args, { '--root', context.cwd })
  end
  table.insert(args, '-')
  local ok, err = pcall(vim.system, args, { stdin = text, text = true }, function(out)
    vim.schedule(function()
      local decoded = (out.code == 0 or out.code == 1) and decode_cli_output(out.stdout or '')
      if decoded then
        show(decoded, context)
      else
        notify(
          string.format('`%s explain` failed (exit %s): %s', cmd[1], tostring(out.code), vim.trim(out.stderr or '')),
          vim.log.levels.ERROR
        )
      end
    end)
  end)
  if not ok then
    notify(string.format('cannot run %s: %s (see :checkhealth dldoctor)', cmd[1], tostring(err)), vim.log.levels.ERROR)
  end
end

--- Diagnoses `text`. context: { cwd, source, quiet, bufnr }.
function M.explain(text, context)
  context = context or {}
  if vim.trim(text) == '' then
    if not context.quiet then
      notify('nothing to explain: the text is empty', vim.log.levels.WARN)
    end
    return
  end
  text = tail(text, options().max_bytes)
  local client = dldoctor_client(context.bufnr or 0)
  if not client then
    explain_with_cli(text, context)
    return
  end
  local params = { command = EXPLAIN, arguments = { { text = text, cwd = context.cwd } } }
  client:request('workspace/executeCommand', params, function(err, result)
    if err then
      notify('explain failed: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    show(type(result) == 'table' and result or { findings = {} }, context)
  end, context.bufnr)
end

function M.explain_buffer(bufnr, context)
  context = context or {}
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  local cwd = vim.fn.getcwd()
  if vim.bo[bufnr].buftype == 'terminal' then
    lines = M.unwrap(lines, terminal_width(bufnr))
    cwd = terminal_cwd(bufnr)
  end
  M.explain(
    table.concat(lines, '\n'),
    vim.tbl_extend('keep', context, { cwd = cwd, source = 'buffer ' .. bufnr, bufnr = bufnr })
  )
end

local function read_file(path)
  local file, err = io.open(path, 'rb')
  if not file then
    return nil, err
  end
  local size = file:seek('end')
  local max = options().max_bytes
  file:seek('set', size and size > max and size - max or 0)
  local text = file:read('*a')
  file:close()
  return text
end

--- The most recently used terminal buffer, for :DldoctorExplain from a non-terminal window.
local function last_terminal_buffer()
  local best, best_used = nil, -1
  for _, info in ipairs(vim.fn.getbufinfo({ buflisted = 0 })) do
    if vim.bo[info.bufnr].buftype == 'terminal' and info.lastused > best_used then
      best, best_used = info.bufnr, info.lastused
    end
  end
  return best
end

--- :DldoctorExplain [file] / :'<,'>DldoctorExplain
function M.command(opts)
  if opts.args and opts.args ~= '' then
    local path = vim.fn.fnamemodify(vim.fn.expand(opts.args), ':p')
    local text, err = read_file(path)
    if not text then
      notify('cannot read ' .. path .. ': ' .. tostring(err), vim.log.levels.ERROR)
      return
    end
    M.explain(text, { cwd = vim.fn.getcwd(), source = path })
    return
  end
  local bufnr = vim.api.nvim_get_current_buf()
  if opts.range and opts.range > 0 then
    local lines = vim.api.nvim_buf_get_lines(bufnr, opts.line1 - 1, opts.line2, false)
    local cwd = vim.bo[bufnr].buftype == 'terminal' and terminal_cwd(bufnr) or vim.fn.getcwd()
    M.explain(table.concat(lines, '\n'), { cwd = cwd, source = 'range', bufnr = bufnr })
    return
  end
  if vim.bo[bufnr].buftype ~= 'terminal' then
    bufnr = last_terminal_buffer()
    if not bufnr then
      notify('no :terminal to explain; give a range or a log file', vim.log.levels.WARN)
      return
    end
  end
  M.explain_buffer(bufnr)
end

return M
