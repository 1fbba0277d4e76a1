-- The framing of attach's JSON lines: whole lines from Neovim's chunks, answers matched to their
-- requests by id, and the process's end.
local H = require('helper')
local T = {}

local function started()
  local fake = H.fake_attach()
  local heard, ended = {}, {}
  local attach = require('companion4j.attach')
  assert(attach.start({ 'companion4j', 'attach' }, {
    notification = function(method, params)
      table.insert(heard, { method, params })
    end,
    exit = function(code, stderr)
      table.insert(ended, { code, stderr })
    end,
  }))
  return attach, fake, heard, ended
end

T['a message split across chunks is read once whole, and lines in one chunk each'] = function()
  local _, fake, heard = started()
  fake.chunk({ '{"method":"clientConn' })
  fake.chunk({ 'ected","params":{"id":"a","label":"Qwen Code"}}', '{"method":"detac' })
  H.eq({}, { unpack(heard, 2) }, 'after the first whole line')
  fake.chunk({ 'hed","params":{"reason":"gone"}}', '{"method":"context","params":{}}', '' })
  H.eq({
    { 'clientConnected', { id = 'a', label = 'Qwen Code' } },
    { 'detached', { reason = 'gone' } },
    { 'context', {} },
  }, vim.tbl_map(function(h)
    return { h[1], vim.deepcopy(h[2]) }
  end, heard), 'notifications')
end

T['answers reach their own request whatever their order, errors with their code'] = function()
  local attach, fake = started()
  local first, second
  attach.request('diff', { diff = '0123456789abcdef' }, function(result, err)
    first = { result, err }
  end)
  attach.request('accept', { diff = 'fedcba9876543210' }, function(result, err)
    second = { result, err }
  end)
  H.eq({ 'diff', 'accept' }, { fake.sent[1].method, fake.sent[2].method }, 'requests sent')
  H.eq({ diff = 'fedcba9876543210' }, fake.sent[2].params, 'params')
  fake.say({ id = fake.sent[2].id, error = { code = 'ended', message = 'diff fedcba9876543210 is no longer pending', outcome = 'replaced' } })
  fake.say({ id = fake.sent[1].id, result = { id = '0123456789abcdef' } })
  H.eq({ id = '0123456789abcdef' }, first[1], 'the first answer')
  H.eq(nil, first[2], 'the first error')
  H.eq(nil, second[1], 'the second answer')
  H.eq('ended', second[2].code, 'the second error')
end

T['a request without params sends none, and a notification is one line'] = function()
  local attach, fake = started()
  attach.request('state', nil, function() end)
  H.eq(nil, fake.sent[1].params, 'params of state')
  assert(attach.notify('event', { type = 'focus', path = '/w/a.txt' }))
  H.eq({ method = 'event', params = { type = 'focus', path = '/w/a.txt' } }, fake.sent[2], 'the notification')
end

T['a line that is no JSON is reported and the next is read'] = function()
  local _, fake, heard = started()
  fake.chunk({ 'Picked up JAVA_TOOL_OPTIONS', '{"method":"detached","params":{"reason":"none"}}', '' })
  H.eq('error', heard[1][1], 'first')
  H.truthy(heard[1][2].message:find('not JSON'), 'the error says why')
  H.eq('detached', heard[2][1], 'second')
end

T['when the process ends every waiting request gets detached, and later ones at once'] = function()
  local attach, fake, _, ended = started()
  local answer
  attach.request('terminal', nil, function(result, err)
    answer = { result, err }
  end)
  fake.exit(1, 'bad option')
  H.eq('detached', answer[2].code, 'the waiting request')
  H.eq({ { 1, 'bad option' } }, ended, 'exit')
  H.eq(false, attach.running(), 'running')
  local later
  attach.request('state', nil, function(_, err)
    later = err
  end)
  H.eq('detached', later.code, 'a later request')
  H.eq(false, attach.notify('event', {}), 'a notification')
end

T['a request waited for gives up after its bound'] = function()
  local attach = started()
  local started_at = vim.loop.hrtime()
  local result, err = attach.request_sync('state', nil, 100)
  H.eq(nil, result, 'result')
  H.truthy(err.message:find('did not answer in time'), 'the reason')
  H.truthy((vim.loop.hrtime() - started_at) / 1e6 < 1000, 'bounded')
end

return T
