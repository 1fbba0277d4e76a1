-- Changes of several files reviewed as one, answered through attach by their id.
local H = require('helper')
local T = {}

local ID, NEXT = '0123456789abcdef', 'fedcba9876543210'

--- A change of a.py and b.py as attach sends it.
local function change(id, dir)
  return { id = id, proposerName = 'Qwen Code', openedAt = '2026-11-27T08:00:00Z', files = {
    { path = dir .. '/a.py', change = 'modified', originalContent = 'def old():\n    pass\n', newContent = 'def new():\n    pass\n' },
    { path = dir .. '/b.py', change = 'modified', originalContent = 'from a import old\nold()\n', newContent = 'from a import new\nnew()\n' },
  } }
end

--- The plugin set up in a workspace holding a.py and b.py, attached, with state's fields.
local function attached(state, opts)
  local dir = H.workspace({ ['a.py'] = 'def old():\n    pass\n', ['b.py'] = 'from a import old\nold()\n' })
  local fake = H.fake_attach()
  require('companion4j').setup(opts)
  H.attached(state)
  return dir, fake
end

local function opened()
  local dir, fake = attached()
  fake.say({ method = 'changeOpened', params = change(ID, dir) })
  return dir, fake
end

local function tabs()
  return #vim.api.nvim_list_tabpages()
end

local function write(path, text)
  local f = assert(io.open(path, 'w'))
  f:write(text)
  f:close()
end

T['a change opens a diff tab per file, the first in front, its proposer named'] = function()
  local dir = opened()
  H.eq(3, tabs(), 'tabs')
  H.eq('companion://' .. ID .. '/a.py', vim.api.nvim_buf_get_name(0), 'the first proposal in front')
  H.eq({ 'def new():', '    pass' }, vim.api.nvim_buf_get_lines(0, 0, -1, false), 'its lines')
  H.eq(true, vim.wo.diff, 'diff mode')
  vim.cmd('wincmd h')
  H.eq({ 'def old():', '    pass' }, vim.api.nvim_buf_get_lines(0, 0, -1, false), 'the text before')
  H.truthy(H.said('Qwen Code: one change of a.py, b.py to review; :Companion4jAccept, :Companion4jReject'), 'the message')
  H.eq('C4J 0 CLIs · 1 to review', require('companion4j').statusline(), 'statusline')
  H.eq({ { id = ID, proposer = 'Qwen Code', paths = { dir .. '/a.py', dir .. '/b.py' } } }, require('companion4j').changes(), 'changes')
end

T['accepting sends one answer for all files, with the edits made in the proposals, and closes every tab'] = function()
  local dir, fake = opened()
  vim.cmd('tabnext 3')
  H.eq('companion://' .. ID .. '/b.py', vim.api.nvim_buf_get_name(0), 'the second file')
  vim.api.nvim_buf_set_lines(0, -1, -1, false, { 'new()' })
  vim.cmd('write')
  H.eq(0, #fake.sent_with('acceptChange'), 'writing one file answers nothing')
  H.truthy(H.said('your edit of b.py goes with the change when you accept it'), 'the message')
  require('companion4j').accept()
  local request = fake.answer('acceptChange', { result = {} })
  H.eq({ change = ID, files = { { path = dir .. '/b.py', content = 'from a import new\nnew()\nnew()\n' } } }, request.params, 'the request')
  H.eq(1, tabs(), 'tabs after the answer')
  H.truthy(H.said('accepted the change of a.py, b.py'), 'the message')
  H.eq({}, require('companion4j').changes(), 'changes')
end

T['rejecting, or closing any file of the change, writes none and closes every tab'] = function()
  local _, fake = opened()
  require('companion4j').reject()
  H.eq({ change = ID }, fake.answer('rejectChange', { result = {} }).params, 'the reject request')
  H.eq(1, tabs(), 'tabs')
  fake.say({ method = 'changeOpened', params = change(NEXT, vim.fn.getcwd()) })
  H.eq(3, tabs(), 'the next change')
  vim.cmd('quit')
  H.eq({ change = NEXT }, fake.answer('rejectChange', { result = {} }).params, 'closing one file rejects the change')
  H.wait_for(function()
    return tabs() == 1
  end, 'every tab to close')
  H.eq(0, #fake.sent_with('acceptChange'), 'accept requests')
end

T['a change accepted elsewhere closes its tabs and reloads the buffers of its files'] = function()
  local dir, fake = attached()
  H.attached({ pendingChanges = { change(ID, dir) } })
  H.eq(3, tabs(), 'a pending change opens as attach says attached')
  vim.cmd('tabnew ' .. dir .. '/b.py')
  local buf = vim.api.nvim_get_current_buf()
  write(dir .. '/b.py', 'from a import new\nnew()\n')
  fake.say({ method = 'changeClosed', params = { id = ID, outcome = 'accepted' } })
  H.eq(2, tabs(), 'tabs')
  H.truthy(H.said('the change of a.py, b.py was accepted'), 'the message')
  H.eq({ 'from a import new', 'new()' }, vim.api.nvim_buf_get_lines(buf, 0, -1, false), 'the reloaded buffer')
end

T['after accepting, a buffer of a file the companion then writes reloads'] = function()
  local dir, fake = opened()
  vim.cmd('$tabnew ' .. dir .. '/a.py')
  local buf = vim.api.nvim_get_current_buf()
  vim.cmd('tabfirst | tabnext')
  require('companion4j').accept()
  fake.answer('acceptChange', { result = {} })
  fake.say({ method = 'changeClosed', params = { id = ID, outcome = 'accepted' } })
  write(dir .. '/a.py', 'def new():\n    pass\n')
  H.wait_for(function()
    return vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1] == 'def new():'
  end, 'the buffer to reload')
end

T['a change that ended on disk says so; a re-attach closes what is no longer pending'] = function()
  local dir, fake = opened()
  fake.say({ method = 'changeClosed', params = { id = ID, outcome = 'changedOnDisk', changedOnDisk = { dir .. '/a.py' } } })
  H.truthy(H.said('the change of a.py, b.py ended: files changed on disk since it was proposed; nothing was written'), 'the message')
  H.eq(1, tabs(), 'tabs')
  fake.say({ method = 'changeOpened', params = change(ID, dir) })
  H.eq(1, tabs(), 'an ended change does not come back')
  fake.say({ method = 'changeOpened', params = change(NEXT, dir) })
  H.attached({ pendingChanges = {} })
  H.truthy(H.said('the change of a.py, b.py is no longer pending'), 'the message')
  H.eq(1, tabs(), 'tabs after the re-attach')
end

T['a change whose id or paths are not of their documented form is refused before it reaches a buffer or command'] = function()
  local dir, fake = attached()
  local pwned = dir .. '/pwned'
  local bad_id = change(ID .. '\noutput = ' .. pwned, dir)
  local bad_path = change(ID, dir)
  bad_path.files[2].path = dir .. '/b.py\n!touch ' .. pwned
  local relative = change(NEXT, dir)
  relative.files[1].path = 'a.py'
  for _, c in ipairs({ bad_id, bad_path, relative }) do
    fake.say({ method = 'changeOpened', params = c })
  end
  H.truthy(H.said('refused a change whose id is not sixteen hex digits'), 'the id')
  H.truthy(H.said('refused a change with a file that is not an absolute path without control characters'), 'the path')
  H.eq(1, tabs(), 'tabs')
  H.eq(0, vim.fn.filereadable(pwned), 'nothing ran')
end

T['with open_diffs off a change is announced and :Companion4jReview opens it'] = function()
  local dir, fake = attached(nil, { open_diffs = false })
  fake.say({ method = 'changeOpened', params = change(ID, dir) })
  H.truthy(H.said('Qwen Code proposes one change of 2 files: :Companion4jReview'), 'the message')
  H.eq(1, tabs(), 'tabs')
  vim.defer_fn(function()
    fake.answer('state', { result = { pendingDiffs = {}, pendingChanges = { change(ID, dir) } } })
  end, 0)
  require('companion4j').review()
  H.eq(3, tabs(), 'tabs after :Companion4jReview')
end


T['a change of many files is counted in its messages, which stay one line'] = function()
  local dir, fake = attached()
  local files = {}
  for i = 1, 5 do
    table.insert(files, { path = dir .. '/module_with_a_long_name_' .. i .. '.py', change = 'new', originalContent = '', newContent = 'x = 1\n' })
  end
  fake.say({ method = 'changeOpened', params = { id = ID, proposerName = 'Companion4J rename to make_disc', files = files } })
  H.truthy(H.said('Companion4J rename to make_disc: one change of 5 files to review; :Companion4jAccept, :Companion4jReject'), 'the message')
  require('companion4j').reject()
  fake.answer('rejectChange', { result = {} })
  H.truthy(H.said('rejected the change of 5 files'), 'the answer')
end

return T
