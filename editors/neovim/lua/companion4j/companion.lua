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

--- The companion for the working directory: { api, port, workspace }, with the
--- token kept out of it so that printing it shows no secret; nil when none runs.
function M.find()
  local api, token = os.getenv('COMPANION4J_EDITOR_API'), os.getenv('COMPANION4J_TOKEN')
  if api and api ~= '' and token and token ~= '' then
    return { api = api, port = tonumber(api:match(':(%d+)/')), workspace = vim.fn.getcwd() }, token
  end
  local cwd = vim.fn.getcwd()
  local best, best_token, best_mtime
  for _, file in ipairs(vim.fn.glob(lock_dir() .. '/*.lock', false, true)) do
    local ok, lock = pcall(vim.json.decode, table.concat(vim.fn.readfile(file), '\n'))
    if ok and type(lock) == 'table' and lock.port and lock.authToken then
      local mtime = vim.fn.getftime(file)
      for root in tostring(lock.workspacePath or ''):gmatch('[^:]+') do
        if contains(root, cwd) and (not best_mtime or mtime > best_mtime) then
          best = { api = 'http://127.0.0.1:' .. lock.port .. '/editor', port = lock.port, workspace = lock.workspacePath }
          best_token, best_mtime = lock.authToken, mtime
        end
      end
    end
  end
  return best, best_token
end

--- A value for curl's config file, where backslashes and quotes are escaped.
local function quoted(s)
  return '"' .. s:gsub('\\', '\\\\'):gsub('"', '\\"'):gsub('\n', '\\n') .. '"'
end

local function config(c, token, method, route, body, extra)
  local lines = {
    'url = ' .. quoted(c.api .. route),
    'request = ' .. quoted(method),
    'header = ' .. quoted('Authorization: Bearer ' .. token),
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

-- The companion in use, kept until a request to it fails or its stream ends,
-- so that events do not read every discovery file each time.
local in_use, in_use_token

local function current()
  if not in_use then
    in_use, in_use_token = M.find()
  end
  return in_use, in_use_token
end

--- Looks for the companion again on the next request: it stopped, or
--- restarted with a new port and token.
function M.forget()
  in_use, in_use_token = nil, nil
end

--- Sends one request; calls on_done(status, body) on the main loop, with
--- status nil when no companion serves the directory or curl failed.
function M.request(method, route, body, on_done)
  on_done = on_done or function() end
  local c, token = current()
  if not c then
    return on_done(nil, 'no companion serves ' .. vim.fn.getcwd())
  end
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

--- The same request, waited for (at most 10 s): returns status, body.
function M.request_sync(method, route, body)
  local result
  M.request(method, route, body, function(status, response)
    result = { status, response }
  end)
  vim.wait(11000, function()
    return result ~= nil
  end, 10)
  if not result then
    return nil, 'the companion did not answer in time'
  end
  return result[1], result[2]
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

--- Follows the event stream: on_line(line) for every line, on_exit() when it
--- ends. Returns the job id, or nil when no companion serves the directory.
function M.stream(on_line, on_exit)
  local c, token = current()
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
