-- The one process the plugin talks to, `companion4j attach` (docs/attach.md): JSON lines over its
-- standard input and output. It finds the companion, has it prove itself, holds the token and
-- follows the event stream; this module only frames messages and matches answers to requests.
local M = {}

--- Starts argv and returns { send = fn(text) -> ok, close = fn() }, or nil when it cannot run.
--- on_chunk(data) gets stdout as Neovim delivers it (see lines() below), on_exit(code, stderr)
--- the exit code and the last line attach wrote for humans. Unit tests put a fake in its place.
function M.spawn(argv, on_chunk, on_exit)
  local said = ''
  local ok, job = pcall(vim.fn.jobstart, argv, {
    on_stdout = function(_, data)
      on_chunk(data)
    end,
    on_stderr = function(_, data)
      for _, line in ipairs(data) do
        if line:match('%S') then
          said = line
        end
      end
    end,
    on_exit = function(_, code)
      on_exit(code, said)
    end,
  })
  if not ok or job <= 0 then
    return nil
  end
  return {
    send = function(text)
      return pcall(vim.fn.chansend, job, text)
    end,
    close = function()
      -- The end of its input ends attach, and the companion it started; give it time to remove
      -- that companion's discovery files before Neovim goes.
      pcall(vim.fn.chanclose, job, 'stdin')
      vim.fn.jobwait({ job }, 3000)
    end,
  }
end

-- The process, the requests waiting for their answer (id -> on_done) and the last id used.
local proc, waiting, last_id = nil, {}, 0

--- A handler of Neovim's stdout chunks calling on_line for every whole line: Neovim splits output
--- at newlines, and the first item of a chunk continues the last line of the chunk before.
local function lines(on_line)
  local partial = ''
  return function(data)
    data[1] = partial .. data[1]
    partial = table.remove(data)
    for _, line in ipairs(data) do
      on_line(line)
    end
  end
end

local function fail_waiting(err)
  local callbacks = waiting
  waiting = {}
  for _, on_done in pairs(callbacks) do
    on_done(nil, err)
  end
end

--- Starts `argv` (`companion4j attach …`); handlers.notification(method, params) gets every
--- notification, handlers.exit(code, stderr) the end of the process. Returns true when it runs.
function M.start(argv, handlers)
  if proc then
    return true
  end
  local function on_line(line)
    if line == '' then
      return
    end
    local ok, msg = pcall(vim.json.decode, line, { luanil = { object = true, array = true } })
    if not ok or type(msg) ~= 'table' then
      return handlers.notification('error', { message = 'companion4j attach sent a line that is not JSON; skipped' })
    end
    if msg.id ~= nil and waiting[msg.id] then
      local on_done = waiting[msg.id]
      waiting[msg.id] = nil
      if msg.error ~= nil then
        on_done(nil, type(msg.error) == 'table' and msg.error or { code = 'failed', message = tostring(msg.error) })
      else
        on_done(msg.result or {}, nil)
      end
    elseif type(msg.method) == 'string' then
      handlers.notification(msg.method, type(msg.params) == 'table' and msg.params or {})
    end
  end
  proc = M.spawn(argv, lines(on_line), function(code, stderr)
    proc = nil
    fail_waiting({ code = 'detached', message = 'companion4j attach ended' })
    handlers.exit(code, stderr)
  end)
  return proc ~= nil
end

function M.running()
  return proc ~= nil
end

local function send(msg)
  return proc ~= nil and proc.send(vim.json.encode(msg) .. '\n')
end

--- Sends a notification; false when no attach process takes it.
function M.notify(method, params)
  return send({ method = method, params = params })
end

--- Sends a request; on_done(result, nil) or on_done(nil, { code, message }) follows exactly once.
function M.request(method, params, on_done)
  last_id = last_id + 1
  local id = last_id
  waiting[id] = on_done
  if not send({ id = id, method = method, params = params }) then
    waiting[id] = nil
    on_done(nil, { code = 'detached', message = 'companion4j attach does not run' })
  end
end

--- The same request, waited for at most timeout_ms: returns result, err.
function M.request_sync(method, params, timeout_ms)
  local answer
  M.request(method, params, function(result, err)
    answer = { result, err }
  end)
  vim.wait(timeout_ms or 10000, function()
    return answer ~= nil
  end, 10)
  if not answer then
    return nil, { code = 'failed', message = 'companion4j attach did not answer in time' }
  end
  return answer[1], answer[2]
end

--- Ends the process: attach stops the companion it started, if any.
function M.stop()
  if proc then
    proc.close()
  end
end

return M
