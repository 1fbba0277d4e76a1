-- The plugin's unit tests, headless and without any configuration:
--   nvim --headless -u NONE -i NONE -c 'luafile editors/neovim/test/run.lua'
-- Each *_test.lua returns a table of test functions; each runs on a fresh copy of the plugin's
-- modules in a Neovim reset to one empty tab. Exits 0 when all pass, else 1 with the failures.
local root = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h:h')
vim.opt.runtimepath:prepend(root)
vim.opt.swapfile = false
package.path = root .. '/test/?.lua;' .. package.path

local function reset()
  vim.cmd('silent! tabonly! | silent! only! | enew! | silent! %bwipeout!')
  for name in pairs(package.loaded) do
    if name:match('^companion4j') then
      package.loaded[name] = nil
    end
  end
end

local failures, count = {}, 0
for _, file in ipairs(vim.fn.glob(root .. '/test/*_test.lua', false, true)) do
  local ok, tests = pcall(dofile, file)
  if not ok then
    table.insert(failures, file .. ': ' .. tostring(tests))
    tests = {}
  end
  local names = vim.tbl_keys(tests)
  table.sort(names)
  for _, name in ipairs(names) do
    reset()
    count = count + 1
    local passed, err = xpcall(tests[name], debug.traceback)
    if not passed then
      table.insert(failures, vim.fn.fnamemodify(file, ':t') .. ' ' .. name .. ': ' .. tostring(err))
    end
    pcall(require('helper').finish)
  end
end
io.stdout:write(('%d tests, %d failed\n'):format(count, #failures))
for _, f in ipairs(failures) do
  io.stdout:write('FAILED ' .. f .. '\n\n')
end
vim.cmd(#failures == 0 and 'qa!' or 'cquit 1')
