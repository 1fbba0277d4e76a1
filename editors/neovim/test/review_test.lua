-- Proposals reviewed in tabs, answered through attach by their id.
local H = require('helper')
local T = {}

local ID, NEXT = '0123456789abcdef', 'fedcba9876543210'

--- The plugin set up in a workspace holding notes.txt, attached, with a proposal for notes.txt
--- pending when text is given.
local function attached(text, opts)
  local dir = H.workspace({ ['notes.txt'] = 'alpha\nbeta\n' })
  local fake = H.fake_attach()
  require('companion4j').setup(opts)
  H.attached({ pendingDiffs = { text and H.diff(ID, dir .. '/notes.txt', text) },
    clients = { { id = 'c1', label = 'Qwen Code 0.24.4' } } })
  return dir, fake
end

local function tabs()
  return #vim.api.nvim_list_tabpages()
end

T['a pending proposal opens as a diff tab when attach says attached'] = function()
  local dir = attached('alpha\nsecond\n')
  H.eq(2, tabs(), 'tabs')
  H.eq('companion://' .. ID .. '/notes.txt', vim.api.nvim_buf_get_name(0), 'the proposal buffer')
  H.eq({ 'alpha', 'second' }, vim.api.nvim_buf_get_lines(0, 0, -1, false), 'its lines')
  H.eq(true, vim.wo.diff, 'diff mode')
  H.eq('C4J 1 CLI · 1 to review', require('companion4j').statusline(), 'statusline')
  H.truthy(H.said('Qwen Code proposes an edit to notes.txt: :w accepts, :q rejects'), 'the message')
  H.eq({ { id = ID, path = dir .. '/notes.txt', buf = vim.api.nvim_get_current_buf() } }, require('companion4j').proposals(), 'proposals')
end

T['writing the proposal accepts it with the text as edited, by its id'] = function()
  local dir, fake = attached('alpha\nsecond\n')
  vim.api.nvim_buf_set_lines(0, -1, -1, false, { 'by hand' })
  vim.cmd('write')
  local request = fake.answer('accept', { result = {} })
  H.eq({ diff = ID, content = 'alpha\nsecond\nby hand\n' }, request.params, 'the accept request')
  H.eq(1, tabs(), 'tabs after the answer')
  H.truthy(H.said('accepted the edit to notes.txt; the CLI writes it'), 'the message')
  H.eq(0, #require('companion4j').proposals(), 'proposals')
end

T['closing the proposal rejects it'] = function()
  local dir, fake = attached('alpha\nsecond\n')
  vim.cmd('quit')
  local request = fake.answer('reject', { result = {} })
  H.eq({ diff = ID }, request.params, 'the reject request')
  H.wait_for(function()
    return tabs() == 1
  end, 'the tab to close')
  H.truthy(H.said('rejected the edit to notes.txt'), 'the message')
end

T['an answer that came too late closes the proposal and says why'] = function()
  local dir, fake = attached('alpha\nsecond\n')
  require('companion4j').accept()
  fake.answer('accept', { error = { code = 'ended', outcome = 'replaced',
    message = 'diff ' .. ID .. ' is no longer pending: it was replaced by a newer proposal' } })
  H.eq(1, tabs(), 'tabs')
  H.truthy(H.said('it was replaced by a newer proposal'), 'the message')
end

T['an answer that reached no CLI leaves the proposal open to answer again'] = function()
  local dir, fake = attached('alpha\nsecond\n')
  vim.cmd('write')
  fake.answer('accept', { error = { code = 'failed', message = 'the companion could not be reached' } })
  H.eq(2, tabs(), 'tabs')
  H.eq(true, vim.bo.modified, 'the proposal is marked unsaved again')
  H.truthy(H.said('the companion could not be reached; the proposal stays open: answer again'), 'the message')
  vim.cmd('write')
  fake.answer('accept', { result = {} })
  H.eq(1, tabs(), 'tabs after the second answer')
end

T['a replacement closes the old proposal with the reason and opens the new one'] = function()
  local dir, fake = attached('alpha\nsecond\n')
  fake.say({ method = 'diffClosed', params = { id = ID, filePath = dir .. '/notes.txt', outcome = 'replaced' } })
  fake.say({ method = 'diffOpened', params = H.diff(NEXT, dir .. '/notes.txt', 'alpha\nthird\n') })
  H.truthy(H.said('the edit to notes.txt was replaced by a newer proposal'), 'the message')
  H.eq(2, tabs(), 'tabs')
  H.eq({ NEXT }, vim.tbl_map(function(p)
    return p.id
  end, require('companion4j').proposals()), 'proposals')
  require('companion4j').accept()
  H.eq(NEXT, fake.answer('accept', { result = {} }).params.diff, 'the answer names the new one')
  -- A late diffOpened for the ended one brings nothing back.
  fake.say({ method = 'diffOpened', params = H.diff(ID, dir .. '/notes.txt', 'alpha\nsecond\n') })
  H.eq(1, tabs(), 'tabs')
end

T['a proposal for a new file shows an empty original'] = function()
  local dir = attached()
  H.fake.say({ method = 'diffOpened', params = H.diff(ID, dir .. '/src/New.java', 'class New {}\n', 'new') })
  H.eq(2, tabs(), 'tabs')
  H.truthy(H.said('proposes a new file src/New.java'), 'the message')
  vim.cmd('wincmd h')
  H.eq({ '' }, vim.api.nvim_buf_get_lines(0, 0, -1, false), 'the original side')
end

T['an id or path not of its documented form is refused before it reaches a buffer or command'] = function()
  local dir, fake = attached()
  local pwned = dir .. '/pwned'
  fake.say({ method = 'diffOpened', params = H.diff(ID .. '\noutput = ' .. pwned, dir .. '/notes.txt', 'beta\n') })
  fake.say({ method = 'diffOpened', params = H.diff(ID, dir .. '/notes.txt\n!touch ' .. pwned, 'beta\n') })
  fake.say({ method = 'diffOpened', params = H.diff(NEXT, 'notes.txt', 'beta\n') })
  H.truthy(H.said('refused a proposal whose id is not sixteen hex digits'), 'the id')
  H.truthy(H.said('refused a proposal whose file is not an absolute path without control characters'), 'the path')
  H.eq(1, tabs(), 'tabs')
  H.eq(0, vim.fn.filereadable(pwned), 'nothing ran')
end

T['a re-attach closes what is no longer pending and opens what is'] = function()
  local dir = attached('alpha\nsecond\n')
  H.attached({ pendingDiffs = { H.diff(NEXT, dir .. '/notes.txt', 'alpha\nthird\n') } })
  H.truthy(H.said('the edit to notes.txt is no longer pending'), 'the message')
  H.eq({ NEXT }, vim.tbl_map(function(p)
    return p.id
  end, require('companion4j').proposals()), 'proposals')
end

T['with open_diffs off a proposal is announced and :Companion4jReview opens the pending ones'] = function()
  local dir, fake = attached(nil, { open_diffs = false })
  fake.say({ method = 'diffOpened', params = H.diff(ID, dir .. '/notes.txt', 'alpha\nsecond\n') })
  H.truthy(H.said('Qwen Code proposes an edit to notes.txt: :Companion4jReview'), 'the message')
  H.eq(1, tabs(), 'tabs')
  vim.defer_fn(function()
    fake.answer('state', { result = { pendingDiffs = { H.diff(ID, dir .. '/notes.txt', 'alpha\nsecond\n') } } })
  end, 0)
  require('companion4j').review()
  H.eq(2, tabs(), 'tabs after :Companion4jReview')
end

T['answering outside a proposal says so and sends nothing'] = function()
  local _, fake = attached()
  require('companion4j').accept()
  H.truthy(H.said('this tab shows no proposed edit'), 'the message')
  H.eq(0, #fake.sent_with('accept'), 'accept requests')
end

return T
