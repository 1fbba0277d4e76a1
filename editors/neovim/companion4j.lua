-- companion4j.lua: tells a running `companion4j serve` which file you edit in
-- Neovim, where the cursor is and what is selected, so Qwen Code / Gemini CLI
-- see it as IDE context, and lets you review the edits they propose. Needs
-- Neovim 0.7+ and curl.
--
--   :Companion4jReview   on a file: opens the CLI's pending proposal for it
--                        beside it, as a diff; edit the proposal if you like
--   :Companion4jAccept   in that proposal: the CLI writes it, edits included
--   :Companion4jReject   in that proposal: the CLI is told no
--
-- Answers name the proposal you reviewed by its id: if the CLI replaced it
-- meanwhile, or left, the answer changes nothing and says so.
--
-- Load it from init.lua with  dofile('/path/to/companion4j.lua')
-- or from init.vim with       luafile /path/to/companion4j.lua
--
-- It finds the companion for the current directory in the discovery files
-- that `companion4j serve` writes ($QWEN_HOME/ide/*.lock, else ~/.qwen/ide);
-- COMPANION4J_EDITOR_API and COMPANION4J_TOKEN override that. The token goes
-- to curl on its stdin, never on its command line, where `ps` would show it.
local uv = vim.loop

local function lock_dir()
  local qwen_home = os.getenv('QWEN_HOME')
  if qwen_home and qwen_home ~= '' then
    return qwen_home .. '/ide'
  end
  return (os.getenv('HOME') or '') .. '/.qwen/ide'
end

local function contains(root, dir)
  root = root:gsub('/+$', '')
  return dir == root or dir:sub(1, #root + 1) == root .. '/'
end

-- { api = 'http://127.0.0.1:PORT/editor', token = '...' }, or nil when no
-- companion serves this directory.
local function find_companion()
  local api, token = os.getenv('COMPANION4J_EDITOR_API'), os.getenv('COMPANION4J_TOKEN')
  if api and token then
    return { api = api, token = token }
  end
  local cwd = vim.fn.getcwd()
  local newest
  for _, file in ipairs(vim.fn.glob(lock_dir() .. '/*.lock', false, true)) do
    local ok, lock = pcall(vim.json.decode, table.concat(vim.fn.readfile(file), '\n'))
    if ok and type(lock) == 'table' and lock.port and lock.authToken then
      for root in tostring(lock.workspacePath or ''):gmatch('[^:]+') do
        local mtime = vim.fn.getftime(file)
        if contains(root, cwd) and (not newest or mtime > newest.mtime) then
          newest = { api = 'http://127.0.0.1:' .. lock.port .. '/editor', token = lock.authToken, mtime = mtime }
        end
      end
    end
  end
  return newest
end

-- A value for curl's config file, where backslashes and quotes are escaped.
local function quoted(s)
  return '"' .. s:gsub('\\', '\\\\'):gsub('"', '\\"') .. '"'
end

-- One request at a time, so the companion sees events in the order they happened.
local queue, busy = {}, false

local function send_next()
  if busy or #queue == 0 then
    return
  end
  local event = table.remove(queue, 1)
  local c = find_companion()
  if not c then
    queue = {}
    return
  end
  local config = table.concat({
    'url = ' .. quoted(c.api .. '/events'),
    'header = ' .. quoted('Authorization: Bearer ' .. c.token),
    'header = "Content-Type: application/json"',
    'data-binary = ' .. quoted(vim.json.encode(event)),
    'silent',
    'max-time = 3',
  }, '\n') .. '\n'
  busy = true
  local job = vim.fn.jobstart({ 'curl', '--config', '-' }, {
    on_exit = function()
      busy = false
      send_next()
    end,
  })
  if job <= 0 then
    busy = false
    return
  end
  vim.fn.chansend(job, config)
  vim.fn.chanclose(job, 'stdin')
end

local function post(event)
  table.insert(queue, event)
  send_next()
end

local function file_of(buf)
  local name = vim.api.nvim_buf_get_name(buf)
  if name == '' or vim.bo[buf].buftype ~= '' or vim.fn.filereadable(name) == 0 then
    return nil
  end
  return vim.fn.fnamemodify(name, ':p')
end

local function selected_text()
  local mode = vim.fn.mode()
  if mode ~= 'v' and mode ~= 'V' and mode ~= '\22' then
    return ''
  end
  local a, b = vim.fn.getpos('v'), vim.fn.getpos('.')
  if a[2] > b[2] or (a[2] == b[2] and a[3] > b[3]) then
    a, b = b, a
  end
  local lines = vim.api.nvim_buf_get_lines(0, a[2] - 1, b[2], false)
  if mode == 'v' then
    lines[#lines] = lines[#lines]:sub(1, b[3])
    lines[1] = lines[1]:sub(a[3])
  end
  return table.concat(lines, '\n'):sub(1, 16384)
end

local timer = uv.new_timer()
local last_selection = ''

local function report_cursor()
  local path = file_of(0)
  if not path then
    return
  end
  local pos = vim.api.nvim_win_get_cursor(0)
  local line_text = vim.api.nvim_get_current_line()
  -- The editor API counts characters from 1, Neovim bytes from 0.
  local character = vim.fn.strchars(line_text:sub(1, pos[2])) + 1
  post({ type = 'cursor', path = path, line = pos[1], character = character })
  local text = selected_text()
  if text ~= last_selection then
    last_selection = text
    post({ type = 'selection', path = path, text = text })
  end
end

local group = vim.api.nvim_create_augroup('companion4j', { clear = true })
vim.api.nvim_create_autocmd({ 'BufEnter', 'FocusGained' }, {
  group = group,
  callback = function(args)
    local path = file_of(args.buf)
    if path then
      post({ type = 'focus', path = path })
    end
  end,
})
vim.api.nvim_create_autocmd({ 'BufDelete', 'BufWipeout' }, {
  group = group,
  callback = function(args)
    local path = file_of(args.buf)
    if path then
      post({ type = 'close', path = path })
    end
  end,
})
vim.api.nvim_create_autocmd({ 'CursorMoved', 'CursorMovedI', 'ModeChanged' }, {
  group = group,
  callback = function()
    -- Cursor moves come in bursts; report where the cursor comes to rest.
    timer:stop()
    timer:start(100, 0, vim.schedule_wrap(report_cursor))
  end,
})

-- ---- reviewing proposed edits -------------------------------------------

local function notify(text, level)
  vim.notify('companion4j: ' .. text, level or vim.log.levels.INFO)
end

-- Sends one request and waits for it: returns the status and body, or nil
-- when no companion serves this directory.
local function request(method, route, body)
  local c = find_companion()
  if not c then
    return nil
  end
  local config = {
    'url = ' .. quoted(c.api .. route),
    'request = ' .. quoted(method),
    'header = ' .. quoted('Authorization: Bearer ' .. c.token),
    'write-out = "\\n%{http_code}"',
    'silent',
    'max-time = 5',
  }
  if body then
    table.insert(config, 'header = "Content-Type: application/json"')
    table.insert(config, 'data-binary = ' .. quoted(vim.json.encode(body)))
  end
  local out = vim.fn.system({ 'curl', '--config', '-' }, table.concat(config, '\n') .. '\n')
  local text, status = out:match('^(.*)\n(%d+)$')
  return tonumber(status), text
end

-- The companion's reason for a refusal, e.g. "diff … is no longer pending: it
-- was replaced by a newer proposal".
local function reason(status, body)
  local ok, json = pcall(vim.json.decode, body or '')
  return ok and type(json) == 'table' and json.error or ('the companion answered ' .. tostring(status))
end

local function review()
  local path = file_of(0)
  if not path then
    return notify('this buffer is not a file on disk', vim.log.levels.WARN)
  end
  local status, body = request('GET', '/diffs')
  if not status then
    return notify('no companion serves ' .. vim.fn.getcwd(), vim.log.levels.WARN)
  elseif status ~= 200 then
    return notify(reason(status, body), vim.log.levels.WARN)
  end
  local diff
  for _, d in ipairs(vim.json.decode(body)) do
    if d.filePath == path then
      diff = d
    end
  end
  if not diff then
    return notify('no proposed edit is pending for ' .. path)
  end
  local filetype = vim.bo.filetype
  vim.cmd('diffthis')
  vim.cmd('vertical new')
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].swapfile = false
  vim.api.nvim_buf_set_name(buf, 'companion4j://' .. diff.id .. '/' .. vim.fn.fnamemodify(path, ':t'))
  local lines = vim.split(diff.newContent, '\n', { plain = true })
  local eol = lines[#lines] == ''
  if eol then
    table.remove(lines)
  end
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].filetype = filetype
  -- The id of the proposal on show: answers name it, never the file.
  vim.b[buf].companion4j_diff = diff.id
  vim.b[buf].companion4j_eol = eol
  vim.cmd('diffthis')
  notify('proposal ' .. diff.id .. ' for ' .. vim.fn.fnamemodify(path, ':~:.') .. ': :Companion4jAccept or :Companion4jReject')
end

local function answer(accept)
  local id = vim.b.companion4j_diff
  if not id then
    return notify('answer in the proposal that :Companion4jReview opened', vim.log.levels.WARN)
  end
  local body = {}
  if accept then
    local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
    body.content = vim.b.companion4j_eol and text .. '\n' or text
  end
  local status, response = request('POST', '/diffs/' .. id .. (accept and '/accept' or '/reject'), body)
  if status == 204 then
    vim.cmd('diffoff!')
    vim.cmd('bwipeout')
    notify(accept and 'accepted; the CLI writes the file' or 'rejected')
  elseif not status then
    notify('no companion serves ' .. vim.fn.getcwd(), vim.log.levels.WARN)
  else
    -- 409: answered, replaced or closed meanwhile; 410: its CLI left. Nothing was written.
    notify(reason(status, response), vim.log.levels.WARN)
  end
end

vim.api.nvim_create_user_command('Companion4jReview', review, {})
vim.api.nvim_create_user_command('Companion4jAccept', function()
  answer(true)
end, {})
vim.api.nvim_create_user_command('Companion4jReject', function()
  answer(false)
end, {})
