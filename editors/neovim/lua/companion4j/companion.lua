-- Finding the companion that serves the working directory, and talking to its
-- editor API with curl. The token reaches curl on its standard input (curl's
-- --config -), never on a command line, where other users could read it.
local M = {}

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

--- The port of a loopback editor API address (http://127.0.0.1:41233/editor), or nil.
local function loopback_port(api)
  local port = tonumber(api:match('^http://127%.0%.0%.1:(%d+)/editor/?$') or api:match('^http://localhost:(%d+)/editor/?$'))
  return port and port > 0 and port < 65536 and port or nil
end

--- The companions that may serve the working directory, newest first: { api, port, workspace,
--- pid, token }. None is trusted before it proves that it holds its token (M.connect).
local function candidates()
  local api, token = os.getenv('COMPANION4J_EDITOR_API'), os.getenv('COMPANION4J_TOKEN')
  if api and api ~= '' and token and token ~= '' then
    -- Named by the environment, it can be as stale as a lock: it proves itself the same way.
    return { { api = api:gsub('/+$', ''), port = loopback_port(api), workspace = vim.fn.getcwd(), token = token } }
  end
  local cwd = vim.fn.getcwd()
  local list = {}
  for _, file in ipairs(vim.fn.glob(lock_dir() .. '/*.lock', false, true)) do
    local ok, lock = pcall(vim.json.decode, table.concat(vim.fn.readfile(file), '\n'))
    local port = ok and type(lock) == 'table' and lock.port
    if type(port) == 'number' and port % 1 == 0 and port > 0 and port < 65536
        and type(lock.authToken) == 'string' and lock.authToken ~= '' then
      for root in tostring(lock.workspacePath or ''):gmatch('[^:]+') do
        if contains(root, cwd) then
          table.insert(list, {
            api = 'http://127.0.0.1:' .. port .. '/editor', port = port, workspace = lock.workspacePath,
            pid = type(lock.ppid) == 'number' and lock.ppid or nil, token = lock.authToken,
            mtime = vim.fn.getftime(file),
          })
          break
        end
      end
    end
  end
  table.sort(list, function(a, b)
    return a.mtime > b.mtime
  end)
  return list
end

--- A value for curl's config file: backslashes, quotes and line ends escaped, so a value can
--- never end its line and add an option of its own.
local function quoted(s)
  return '"' .. s:gsub('\\', '\\\\'):gsub('"', '\\"'):gsub('\n', '\\n'):gsub('\r', '\\r'):gsub('\t', '\\t') .. '"'
end

local function config(c, token, method, route, body, extra)
  local lines = {
    'url = ' .. quoted(c.api .. route),
    'request = ' .. quoted(method),
    'header = ' .. quoted('Authorization: Bearer ' .. token),
    -- The companion is on loopback: a proxy would be a third party holding the token.
    'noproxy = "*"',
    'silent',
  }
  if body ~= nil then
    table.insert(lines, 'header = "Content-Type: application/json"')
    table.insert(lines, 'data-binary = ' .. quoted(vim.json.encode(body)))
  end
  vim.list_extend(lines, extra or {})
  return table.concat(lines, '\n') .. '\n'
end

--- Starts curl with its config on stdin; returns the job id, or nil.
local function curl(cfg, opts)
  local ok, job = pcall(vim.fn.jobstart, { 'curl', '--config', '-' }, opts)
  if not ok or job <= 0 then
    return nil
  end
  vim.fn.chansend(job, cfg)
  vim.fn.chanclose(job, 'stdin')
  return job
end

local uv = vim.uv or vim.loop

local function hex(bytes)
  return (bytes:gsub('.', function(c)
    return string.format('%02x', c:byte())
  end))
end

--- Whether the lock's process lives; true when there is none to ask about (the proof decides).
local function alive(pid)
  if not pid then
    return true
  end
  local ok, _, name = uv.kill(pid, 0)
  return ok == 0 or name == 'EPERM'
end

--- Asks c's port to prove that it holds c's token (docs/editor-api.md), sending nothing secret;
--- calls on_done(nil) when it does, else on_done(why).
local function prove(c, on_done)
  if not c.port then
    return on_done('its address ' .. c.api .. ' is not a loopback port')
  end
  if not alive(c.pid) then
    return on_done('its process ' .. c.pid .. ' ended')
  end
  -- A fresh unpredictable nonce each time, so no answer recorded earlier serves again.
  local nonce = hex(uv.random(32))
  local expected = vim.fn.sha256('companion4j-proof:' .. nonce .. ':' .. c.token)
  local out = {}
  local job = curl(table.concat({
    'url = ' .. quoted('http://127.0.0.1:' .. c.port .. '/ide/proof?nonce=' .. nonce),
    'noproxy = "*"',
    'silent',
    'max-time = 3',
    'write-out = "\\n%{http_code}"',
  }, '\n') .. '\n', {
    stdout_buffered = true,
    on_stdout = function(_, data)
      out = data
    end,
    on_exit = function()
      local body, status = table.concat(out, '\n'):match('^(.*)\n(%d+)$')
      if not status or status == '000' then
        return on_done('nothing answers on its port')
      end
      local ok, json = pcall(vim.json.decode, body)
      if status == '200' and ok and type(json) == 'table' and json.proof == expected then
        return on_done(nil)
      end
      on_done('another process holds its port')
    end,
  })
  if not job then
    on_done('cannot run curl')
  end
end

-- The companion in use, once proven, kept until a request to it fails or its stream ends, so
-- that neither the discovery files nor the proof cost every request.
local in_use, in_use_token
-- Why the newest candidate failed its proof, while none is in use.
local gone
-- The callbacks waiting for a proof under way.
local waiting

--- Calls on_done(c, token) with the proven companion, or on_done(nil) when none serves the
--- directory or none proves itself; nothing carrying a token is sent before.
function M.connect(on_done)
  if in_use then
    return on_done(in_use, in_use_token)
  end
  if waiting then
    return table.insert(waiting, on_done)
  end
  waiting = { on_done }
  local list, i, first_failure = candidates(), 0, nil
  local function finish(c)
    local callbacks = waiting
    waiting = nil
    if c then
      in_use, in_use_token, gone = { api = c.api, port = c.port, workspace = c.workspace }, c.token, nil
    else
      gone = first_failure
    end
    for _, callback in ipairs(callbacks) do
      callback(in_use, in_use_token)
    end
  end
  local function try_next()
    i = i + 1
    local c = list[i]
    if not c then
      return finish(nil)
    end
    prove(c, function(why)
      if not why then
        return finish(c)
      end
      first_failure = first_failure or ('the companion on port ' .. tostring(c.port or c.api) .. ' is gone (' .. why .. ')')
      try_next()
    end)
  end
  try_next()
end

--- The companion, proven, waited for (each proof takes at most 3 s): c, or nil.
function M.find()
  local done, found = false, nil
  M.connect(function(c)
    done, found = true, c
  end)
  vim.wait(10000, function()
    return done
  end, 10)
  return found
end

--- Why no companion is in use, e.g. "the companion on port 41233 is gone (another process
--- holds its port)"; nil when one is, or none was ever found.
function M.gone()
  return not in_use and gone or nil
end

--- Looks for the companion again on the next request: it stopped, or
--- restarted with a new port and token.
function M.forget()
  in_use, in_use_token = nil, nil
end

--- Sends one request; calls on_done(status, body) on the main loop, with
--- status nil when no companion serves the directory or curl failed.
local function send(c, token, method, route, body, on_done)
  local out = {}
  local job = curl(config(c, token, method, route, body, { 'write-out = "\\n%{http_code}"', 'max-time = 10' }), {
    stdout_buffered = true,
    on_stdout = function(_, data)
      out = data
    end,
    on_exit = function()
      local text = table.concat(out, '\n')
      local response, status = text:match('^(.*)\n(%d+)$')
      status = tonumber(status)
      if not status or status == 0 or status == 401 then
        M.forget()
      end
      if not status or status == 0 then
        on_done(nil, 'the companion at ' .. c.api .. ' did not answer')
      else
        on_done(status, response)
      end
    end,
  })
  if not job then
    on_done(nil, 'cannot run curl')
  end
end

--- Sends one request to the proven companion; calls on_done(status, body) on the main loop,
--- with status nil when no companion proves itself or curl failed.
function M.request(method, route, body, on_done)
  on_done = on_done or function() end
  M.connect(function(c, token)
    if c then
      send(c, token, method, route, body, on_done)
    else
      on_done(nil, gone or ('no companion serves ' .. vim.fn.getcwd()))
    end
  end)
end

--- The same request, waited for (at most 20 s, the proof included): returns status, body.
function M.request_sync(method, route, body)
  local result
  M.request(method, route, body, function(status, response)
    result = { status, response }
  end)
  vim.wait(20000, function()
    return result ~= nil
  end, 10)
  if not result then
    return nil, 'the companion did not answer in time'
  end
  return result[1], result[2]
end

-- The variables a terminal may take from GET /editor/terminal (Companion.terminalEnvironment)
-- and the form of each value; any other name (NODE_OPTIONS, say) would run what it names.
local PORT, TEXT = '^%d%d?%d?%d?%d?$', '^[^%z\1-\31\127]*$'
local TERMINAL = {
  QWEN_CODE_IDE_SERVER_PORT = PORT, GEMINI_CLI_IDE_SERVER_PORT = PORT,
  QWEN_CODE_IDE_WORKSPACE_PATH = TEXT, GEMINI_CLI_IDE_WORKSPACE_PATH = TEXT,
  GEMINI_CLI_IDE_AUTH_TOKEN = TEXT, REMOTE_CONTAINERS = TEXT,
}

--- The IDE's variables from the JSON text of GET /editor/terminal, and the names of those
--- dropped (not the IDE's, or not of their form); nil when the text is not a JSON object.
function M.terminal_variables(text)
  local ok, all = pcall(vim.json.decode, text or '')
  if not ok or type(all) ~= 'table' or vim.tbl_islist(all) and next(all) ~= nil then
    return nil
  end
  local env, dropped = {}, {}
  for name, value in pairs(all) do
    local form = TERMINAL[name]
    if form and type(value) == 'string' and value:match(form) then
      env[name] = value
    else
      table.insert(dropped, (tostring(name):gsub('[%z\1-\31\127]', '?')))
    end
  end
  table.sort(dropped)
  return env, dropped
end

--- Whether id has the form of a diff id: sixteen lowercase hex digits (the engine's DiffId).
function M.is_diff_id(id)
  return type(id) == 'string' and #id == 16 and id:match('^[0-9a-f]+$') ~= nil
end

--- Whether path is an absolute path without control characters, fit for a command or a name.
function M.is_path(path)
  return type(path) == 'string' and path:sub(1, 1) == '/' and not path:find('[%z\1-\31\127]')
end

--- The companion's reason for a refusal, e.g. "diff … is no longer pending:
--- it was replaced by a newer proposal".
function M.reason(status, body)
  local ok, json = pcall(vim.json.decode, body or '')
  if ok and type(json) == 'table' and json.error then
    return json.error
  end
  return status and ('the companion answered ' .. status) or body
end

--- Follows the proven companion's event stream (M.connect first): on_line(line) for every
--- line, on_exit() when it ends. Returns the job id, or nil when none is proven.
function M.stream(on_line, on_exit)
  local c, token = in_use, in_use_token
  if not c then
    return nil
  end
  local partial = ''
  return curl(config(c, token, 'GET', '/events/stream', nil, { 'no-buffer', 'header = "Accept: text/event-stream"' }), {
    on_stdout = function(_, data)
      -- Neovim splits the output at newlines; the first item continues the
      -- last line of the previous chunk.
      data[1] = partial .. data[1]
      partial = table.remove(data)
      for _, line in ipairs(data) do
        on_line((line:gsub('\r$', '')))
      end
    end,
    on_exit = function()
      M.forget()
      on_exit()
    end,
  })
end

return M
