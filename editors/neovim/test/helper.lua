-- What the unit tests share: a stand-in for the `companion4j attach` process, the messages the
-- plugin shows, and bounded waits.
local H = {}

local cwd = vim.fn.getcwd()

--- Every message the plugin showed since the test began: { text, level }.
H.messages = {}
vim.notify = function(text, level)
  table.insert(H.messages, { text = text, level = level })
end

--- Whether a message containing text (plain) was shown.
function H.said(text)
  for _, m in ipairs(H.messages) do
    if m.text:find(text, 1, true) then
      return true
    end
  end
  return false
end

function H.eq(expected, actual, what)
  if not vim.deep_equal(expected, actual) then
    error((what or 'value') .. ': expected ' .. vim.inspect(expected) .. ', got ' .. vim.inspect(actual), 2)
  end
end

function H.truthy(value, what)
  if not value then
    error(what .. ': ' .. vim.inspect(value) .. '; messages: ' .. vim.inspect(H.messages), 2)
  end
end

--- Waits (at most ms, by default 2 s, running the main loop meanwhile) until cond() holds.
function H.wait_for(cond, what, ms)
  if not vim.wait(ms or 2000, cond, 5) then
    error('waited in vain for ' .. what .. '; messages: ' .. vim.inspect(H.messages), 2)
  end
end

--- A fresh folder with files ({ name = text }), made the working directory: returns its path.
function H.workspace(files)
  local dir = vim.fn.resolve(vim.fn.tempname())
  vim.fn.mkdir(dir, 'p')
  for name, text in pairs(files or {}) do
    local f = assert(io.open(dir .. '/' .. name, 'w'))
    f:write(text)
    f:close()
  end
  vim.cmd('cd ' .. vim.fn.fnameescape(dir))
  return dir
end

--- Puts a fake attach process in place of the real one. It keeps what the plugin sends (decoded)
--- in fake.sent and speaks to the plugin through the plugin's own handling of stdout chunks.
function H.fake_attach()
  local fake = { sent = {}, runs = 0 }
  require('companion4j.attach').spawn = function(argv, on_chunk, on_exit)
    fake.argv, fake.runs = argv, fake.runs + 1
    fake.chunk = on_chunk
    fake.exit = function(code, stderr)
      fake.running = false
      on_exit(code, stderr or '')
    end
    fake.running = true
    return {
      send = function(text)
        assert(text:sub(-1) == '\n' and not text:sub(1, -2):find('\n'), 'one message a line: ' .. text)
        table.insert(fake.sent, vim.json.decode(text))
        return true
      end,
      close = function()
        fake.exit(0)
      end,
    }
  end
  --- Attach writes msg (a table) as one line.
  function fake.say(msg)
    fake.chunk({ vim.json.encode(msg), '' })
  end
  --- The messages sent with this method, oldest first.
  function fake.sent_with(method)
    return vim.tbl_filter(function(m)
      return m.method == method
    end, fake.sent)
  end
  --- The editor events sent, oldest first.
  function fake.events(type)
    return vim.tbl_map(function(m)
      return m.params
    end, vim.tbl_filter(function(m)
      return m.method == 'event' and (type == nil or m.params.type == type)
    end, fake.sent))
  end
  --- Waits (at most ms, by default 2 s) for the request with this method and answers it:
  --- { result = … } or { error = … }.
  function fake.answer(method, answer, ms)
    H.wait_for(function()
      return #fake.sent_with(method) > 0
    end, 'a ' .. method .. ' request', ms)
    local request = table.remove(fake.sent_with(method))
    for i, m in ipairs(fake.sent) do
      if m == request then
        table.remove(fake.sent, i)
      end
    end
    fake.say(vim.tbl_extend('force', { id = request.id }, answer))
    return request
  end
  H.fake = fake
  return fake
end

--- A pending diff as attach sends it.
function H.diff(id, path, text, change)
  return { id = id, filePath = path, newContent = text, change = change or 'modified', clientName = 'Qwen Code' }
end

--- Attach's word that a companion serves the folder, with state's fields.
function H.attached(state)
  H.fake.say({ method = 'attached', params = {
    port = 41233, started = false,
    state = vim.tbl_extend('force', { clients = {}, pendingDiffs = {}, workspaceRoots = { vim.fn.getcwd() } }, state or {}),
  } })
end

--- After each test: the fake process ends, the messages are forgotten, the directory comes back.
function H.finish()
  if H.fake and H.fake.running then
    H.fake.exit(0)
  end
  H.fake, H.messages = nil, {}
  vim.cmd('cd ' .. vim.fn.fnameescape(cwd))
end

return H
