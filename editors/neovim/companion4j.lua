-- companion4j.lua: tells a running `companion4j serve` which file you edit in
-- Neovim, where the cursor is and what is selected, so Qwen Code / Gemini CLI
-- see it as IDE context. Needs Neovim 0.7+ and curl.
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
  local function quoted(s)
    return '"' .. s:gsub('\\', '\\\\'):gsub('"', '\\"') .. '"'
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
