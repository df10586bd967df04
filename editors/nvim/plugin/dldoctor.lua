-- :DldoctorExplain and the optional auto-explain of terminal jobs that exit non-zero.
if vim.g.loaded_dldoctor == 1 then
  return
end
vim.g.loaded_dldoctor = 1

vim.api.nvim_create_user_command('DldoctorExplain', function(opts)
  require('dldoctor.explain').command(opts)
end, {
  nargs = '?',
  range = true,
  complete = 'file',
  desc = 'dldoctor: diagnose crash output (this :terminal, a range, or a log file) into the quickfix list',
})

local group = vim.api.nvim_create_augroup('dldoctor', { clear = true })

-- The directory a terminal started in, for relative paths once its job has exited.
vim.api.nvim_create_autocmd('TermOpen', {
  group = group,
  callback = function(args)
    vim.b[args.buf].dldoctor_cwd = vim.fn.getcwd()
  end,
})

vim.api.nvim_create_autocmd('TermClose', {
  group = group,
  desc = 'dldoctor: diagnose a terminal job that exited non-zero',
  callback = function(args)
    local status = vim.v.event and vim.v.event.status
    if status == nil or status == 0 or not require('dldoctor').auto_explain_enabled() then
      return
    end
    vim.schedule(function()
      if vim.api.nvim_buf_is_valid(args.buf) then
        require('dldoctor.explain').explain_buffer(args.buf, { quiet = true })
      end
    end)
  end,
})
