-- Commands of Companion4J; require('companion4j').setup{} starts it (:help companion4j).
if vim.g.loaded_companion4j then
  return
end
vim.g.loaded_companion4j = true

local function command(name, fn, opts)
  vim.api.nvim_create_user_command(name, fn, opts or {})
end

command('Companion4jStatus', function()
  print(require('companion4j').status())
end)
command('Companion4jStart', function()
  require('companion4j').start()
end)
command('Companion4jReview', function()
  require('companion4j').review()
end)
command('Companion4jAccept', function()
  require('companion4j').accept()
end)
command('Companion4jReject', function()
  require('companion4j').reject()
end)
command('Companion4jRun', function(opts)
  require('companion4j').run(opts.fargs)
end, { nargs = '+', complete = 'shellcmd' })
