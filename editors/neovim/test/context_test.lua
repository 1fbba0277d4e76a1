-- What the editor tells the companion through attach, and what the plugin makes of attach's
-- word about the companion.
local H = require('helper')
local T = {}

local function setup(files, opts)
  local dir = H.workspace(files or { ['notes.txt'] = 'alpha\nbeta\ngamma délta\n' })
  local fake = H.fake_attach()
  vim.cmd('edit notes.txt')
  require('companion4j').setup(opts)
  return dir, fake
end

T['attach runs for the working directory, with --start only under autostart'] = function()
  local dir, fake = setup()
  H.eq({ 'companion4j', 'attach', '--workspace', dir }, fake.argv, 'the command')
  H.finish()
  package.loaded['companion4j'], package.loaded['companion4j.attach'] = nil, nil
  dir, fake = setup(nil, { autostart = true, command = '/opt/c4j/companion4j' })
  H.eq({ '/opt/c4j/companion4j', 'attach', '--workspace', dir, '--start' }, fake.argv, 'under autostart')
  H.eq('C4J starting', require('companion4j').statusline(), 'statusline')
end

T['nothing is sent before a companion is attached; then the file, cursor and diagnostics'] = function()
  local dir, fake = setup()
  vim.api.nvim_win_set_cursor(0, { 3, 9 })
  vim.cmd('doautocmd BufEnter')
  H.eq({}, fake.events(), 'events while none is attached')
  H.attached()
  H.eq({ type = 'focus', path = dir .. '/notes.txt' }, fake.events('focus')[1], 'focus')
  -- Byte 9 of "gamma délta" (from 0) is the "l": the ninth character, as é takes two bytes.
  H.eq({ type = 'cursor', path = dir .. '/notes.txt', line = 3, character = 9 }, fake.events('cursor')[1], 'cursor')
  H.eq({ type = 'diagnostics', path = dir .. '/notes.txt', diagnostics = {} }, fake.events('diagnostics')[1],
    'an empty list says that this editor reports diagnostics')
end

T['a selection is sent with its range in characters, and its end when it ends'] = function()
  local dir, fake = setup()
  H.attached()
  vim.api.nvim_win_set_cursor(0, { 3, 6 })
  vim.cmd('normal! vE')
  H.wait_for(function()
    return #fake.events('selection') > 0
  end, 'the selection')
  H.eq({ type = 'selection', path = dir .. '/notes.txt', text = 'délta',
    range = { startLine = 3, startCharacter = 7, endLine = 3, endCharacter = 12 } }, fake.events('selection')[1], 'selection')
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<Esc>', true, false, true), 'x', false)
  H.wait_for(function()
    return #fake.events('selection') > 1
  end, 'the selection to end')
  H.eq('', fake.events('selection')[2].text, 'the ended selection')
end

T['unsaved changes and diagnostics follow the buffer'] = function()
  local dir, fake = setup()
  H.attached()
  vim.cmd('normal! x')
  -- Neovim 0.7 fires BufModifiedSet as it redraws a window, and a headless one has none.
  vim.cmd('doautocmd <nomodeline> BufModifiedSet')
  H.eq({ type = 'dirty', path = dir .. '/notes.txt', dirty = true, text = 'lpha\nbeta\ngamma délta\n' },
    fake.events('dirty')[1], 'dirty, with the unsaved text')
  vim.diagnostic.set(vim.api.nvim_create_namespace('test'), 0, {
    { lnum = 2, col = 6, end_col = 12, severity = vim.diagnostic.severity.WARN, message = 'unknown word', source = 'spell' },
  })
  H.wait_for(function()
    return #fake.events('diagnostics') > 1
  end, 'the diagnostics')
  H.eq({ {
    range = { startLine = 3, startCharacter = 7, endLine = 3, endCharacter = 12 },
    severity = 'warning', message = 'unknown word', source = 'spell',
  } }, fake.events('diagnostics')[2].diagnostics, 'diagnostics in characters')
end

T['typing sends the unsaved text once it rests, and saving says the file is saved'] = function()
  local dir, fake = setup()
  H.attached()
  vim.api.nvim_buf_set_lines(0, 0, 1, false, { 'typed' })
  -- A headless Neovim checks for changes only as it waits for a key; a user's Neovim does so at
  -- every key typed.
  vim.cmd('doautocmd <nomodeline> TextChanged')
  vim.api.nvim_buf_set_lines(0, 0, 1, false, { 'typed more' })
  vim.cmd('doautocmd <nomodeline> TextChangedI')
  H.eq({}, fake.events('dirty'), 'nothing while typing')
  H.wait_for(function()
    return #fake.events('dirty') > 0
  end, 'the unsaved text')
  H.eq({ { type = 'dirty', path = dir .. '/notes.txt', dirty = true, text = 'typed more\nbeta\ngamma délta\n' } },
    fake.events('dirty'), 'one event, the newest text')
  vim.cmd('silent write')
  vim.cmd('doautocmd <nomodeline> BufModifiedSet')
  H.eq({ type = 'dirty', path = dir .. '/notes.txt', dirty = false }, fake.events('dirty')[2], 'saved')
end

T['a companion that attaches hears of every unsaved file; past its bound, of the state only'] = function()
  local dir, fake = setup({ ['notes.txt'] = 'alpha\n', ['big.txt'] = string.rep('x', 1024 * 1024) .. '\n' })
  vim.o.hidden = true
  vim.cmd('edit big.txt')
  vim.cmd('normal! x')
  vim.cmd('edit notes.txt')
  vim.api.nvim_buf_set_lines(0, 0, 1, false, { 'not saved' })
  H.attached()
  local events = fake.events('dirty')
  table.sort(events, function(a, b)
    return a.path < b.path
  end)
  H.eq({ { type = 'dirty', path = dir .. '/big.txt', dirty = true, text = string.rep('x', 1024 * 1024 - 1) .. '\n' },
    { type = 'dirty', path = dir .. '/notes.txt', dirty = true, text = 'not saved\n' } }, events, 'both')
  vim.cmd('buffer big.txt')
  vim.cmd('normal! yyp')
  require('companion4j.context').report_dirty(0)
  H.eq({ type = 'dirty', path = dir .. '/big.txt', dirty = true }, fake.events('dirty')[3], 'too long')
  vim.o.hidden = false
end

T['a lost companion is said once and shown as gone; a new one is brought up to date'] = function()
  local dir, fake = setup()
  H.attached({ clients = { { id = 'a', label = 'Qwen Code' }, { id = 'b', label = 'Gemini CLI' } } })
  H.eq('C4J 2 CLIs', require('companion4j').statusline(), 'attached')
  fake.say({ method = 'clientDisconnected', params = { id = 'b' } })
  H.eq('C4J 1 CLI', require('companion4j').statusline(), 'one left')
  fake.say({ method = 'detached', params = { reason = 'the companion on port 41233 went away' } })
  H.truthy(H.said('lost the companion; looking for it again'), 'the message')
  H.eq('C4J gone', require('companion4j').statusline(), 'statusline')
  H.eq('no companion serves ' .. dir .. ' (the companion on port 41233 went away); start one with :Companion4jStart or `companion4j serve`',
    require('companion4j').status(), 'status')
  local before = #fake.events('focus')
  H.attached()
  H.eq(before + 1, #fake.events('focus'), 'the file is sent again')
  H.eq('C4J 0 CLIs', require('companion4j').statusline(), 'statusline')
end

T['before any companion the status says none serves the folder and why, without a message'] = function()
  local dir, fake = setup()
  fake.say({ method = 'detached', params = { reason = 'no companion serves the folder' } })
  H.eq('C4J off', require('companion4j').statusline(), 'statusline')
  H.truthy(require('companion4j').status():find('^no companion serves ' .. vim.pesc(dir)), 'status')
  H.eq({}, H.messages, 'messages')
end

T['a refused event is said while attached, and one that raced a detach is not'] = function()
  local dir, fake = setup()
  H.attached()
  fake.say({ method = 'error', params = { method = 'event', message = 'the companion refused the event: path too long' } })
  H.truthy(H.said('the companion refused the event: path too long'), 'the message')
  fake.say({ method = 'detached', params = { reason = 'no companion serves ' .. dir } })
  fake.say({ method = 'error', params = { method = 'event', message = 'no companion is attached' } })
  H.eq(false, H.said('no companion is attached'), 'a message for the raced event')
  H.eq('no companion serves ' .. dir .. '; start one with :Companion4jStart or `companion4j serve`',
    require('companion4j').status(), 'the reason is not said twice')
end

T['the status lists the companion, the CLIs and the proposals, never the token'] = function()
  local dir = setup()
  H.attached({ clients = { { id = 'a', label = 'Qwen Code 0.24.4 (pts/3, pid 4242)' } } })
  H.eq('companion: port 41233\nworkspace: ' .. dir .. '\nCLI: Qwen Code 0.24.4 (pts/3, pid 4242)', require('companion4j').status(), 'status')
end

T['an end of attach is said with its reason, and :Companion4jStart runs it again with --start'] = function()
  local dir, fake = setup()
  fake.exit(2, 'companion4j attach: unknown option --frob')
  H.truthy(H.said('companion4j attach ended: companion4j attach: unknown option --frob'), 'the message')
  require('companion4j').start()
  H.eq({ 'companion4j', 'attach', '--workspace', dir, '--start' }, fake.argv, 'the command')
  H.eq(2, fake.runs, 'runs')
end

T[':Companion4jStart asks the running attach to start one'] = function()
  local dir, fake = setup()
  fake.say({ method = 'detached', params = { reason = 'none' } })
  require('companion4j').start()
  H.eq('C4J starting', require('companion4j').statusline(), 'statusline')
  fake.answer('start', { result = { port = 41234, started = true } })
  H.truthy(H.said('starting the companion for ' .. dir), 'the message')
  H.attached()
  require('companion4j').start()
  H.truthy(H.said('a companion already serves ' .. dir), 'when one serves')
  H.eq(0, #fake.sent_with('start'), 'no second start')
end

T['the model opens a file at a line and character, never a path not absolute'] = function()
  local dir, fake = setup({ ['notes.txt'] = 'x\n', ['Target.java'] = 'class Target {\n\n  void run() {\n  }\n}\n' })
  H.attached()
  fake.say({ method = 'openFile', params = { path = dir .. '/Target.java', line = 3, character = 3 } })
  H.eq(dir .. '/Target.java', vim.api.nvim_buf_get_name(0), 'the file')
  H.eq({ 3, 2 }, vim.api.nvim_win_get_cursor(0), 'the place')
  fake.say({ method = 'openFile', params = { path = 'notes.txt' } })
  H.truthy(H.said('refused to open a file that is not an absolute path'), 'the message')
  H.eq(dir .. '/Target.java', vim.api.nvim_buf_get_name(0), 'still there')
end

T['a terminal takes only the IDE variables of their form'] = function()
  local env, dropped = require('companion4j.terminal').variables({
    NODE_OPTIONS = '--require /tmp/evil.js', LD_PRELOAD = '/tmp/evil.so', QWEN_CODE_IDE_SERVER_PORT = '41233',
    GEMINI_CLI_IDE_SERVER_PORT = '41233\nX=1', GEMINI_CLI_IDE_WORKSPACE_PATH = '/w',
  })
  H.eq({ GEMINI_CLI_IDE_WORKSPACE_PATH = '/w', QWEN_CODE_IDE_SERVER_PORT = '41233' }, env, 'kept')
  H.eq({ 'GEMINI_CLI_IDE_SERVER_PORT', 'LD_PRELOAD', 'NODE_OPTIONS' }, dropped, 'dropped')
  H.eq(nil, require('companion4j.terminal').variables({ 'a', 'b' }), 'a list')
end

T[':Companion4jRun with no companion starts nothing and says why'] = function()
  local _, fake = setup()
  fake.say({ method = 'detached', params = { reason = 'none' } })
  vim.defer_fn(function()
    fake.answer('terminal', { error = { code = 'detached', message = 'no companion is attached right now' } })
  end, 0)
  require('companion4j').run({ 'sh' })
  H.truthy(H.said('no companion is attached right now; start one with :Companion4jStart'), 'the message')
  H.eq('', vim.bo.buftype, 'no terminal')
end

return T
