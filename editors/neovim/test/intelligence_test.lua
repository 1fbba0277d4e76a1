-- What the language server of a small Python project answers through the plugin: the real
-- basedpyright of test-peers (installed by ./test.sh), attached by file type as a user's
-- configuration attaches it.
local H = require('helper')
local T = {}

local repo = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h:h:h:h')
local SERVER = repo .. '/test-peers/node_modules/.bin/basedpyright-langserver'

local FILES = {
  ['shapes.py'] = table.concat({
    'class Shape:',
    '    def area(self) -> float:',
    '        return 0.0',
    '',
    '',
    'class Circle(Shape):',
    '    def area(self) -> float:',
    '        return 3.14',
    '',
    '',
    'def make_circle() -> Circle:',
    '    return Circle()',
    '',
  }, '\n'),
  ['geometry.py'] = table.concat({
    'from shapes import make_circle',
    '',
    '',
    'def total_area() -> float:',
    '    return make_circle().area() + make_circle().area()',
    '',
  }, '\n'),
  ['report.py'] = table.concat({
    'from shapes import make_circle',
    '',
    '',
    'def report() -> str:',
    '    # The café’s circle',
    -- Before the call: a character of two UTF-16 units and four bytes, one of one and two.
    '    return "🎯 café " + str(make_circle())',
    '',
  }, '\n'),
}

-- One project and one server for all these tests: the server starts once, as in a user's session.
local project, client_id, indexed

-- basedpyright knows the files it was not asked about only once it has listed the project's
-- source files, which it reports in its log and in no message of the protocol.
local function log_message(err, result, ctx, config)
  indexed = indexed or result.message:match('^Found %d+ source file') ~= nil
  return vim.lsp.handlers['window/logMessage'](err, result, ctx, config)
end

local function open(name)
  if not project then
    assert(vim.fn.executable(SERVER) == 1, 'no language server at ' .. SERVER .. ': run ./test.sh to install test-peers')
    project = H.workspace(FILES)
    vim.cmd('filetype on')
    client_id = vim.lsp.start_client({ name = 'basedpyright', cmd = { SERVER, '--stdio' }, root_dir = project,
      handlers = { ['window/logMessage'] = log_message } })
    vim.api.nvim_create_autocmd('FileType', {
      pattern = 'python',
      callback = function(args)
        vim.lsp.buf_attach_client(args.buf, client_id)
      end,
    })
  end
  -- Before any file is opened: a file opened and closed before the listing is forgotten
  -- (basedpyright 1.40.1 finds no reference in it afterwards).
  assert(vim.wait(30000, function()
    return indexed
  end, 10), 'the server did not list the project within 30 s')
  vim.cmd('cd ' .. vim.fn.fnameescape(project))
  vim.cmd('edit ' .. name)
  return project .. '/'
end

local function disk(path)
  local f = assert(io.open(path, 'rb'))
  local text = f:read('*a')
  f:close()
  return text
end

local function brief(items)
  return vim.tbl_map(function(p)
    return ('%s:%d:%d%s'):format(vim.fn.fnamemodify(p.path, ':t'), p.line, p.column, p.declaration and ' decl' or '')
  end, items)
end

local intelligence = function()
  return require('companion4j.intelligence')
end

T['the definition of a call lands on its declaration in another file'] = function()
  local dir = open('report.py')
  -- "make_circle" after 'return "🎯 café " + str(' in report.py: character 28, UTF-16 unit 28, byte 32.
  local found = assert(intelligence().definition(dir .. 'report.py', 6, 28))
  H.eq({ { path = dir .. 'shapes.py', line = 11, column = 5, text = 'def make_circle() -> Circle:' } }, found.items, 'definition')
  H.eq(0, found.more, 'more')
end

T['references list every call site across files, the declaration marked, and are bounded'] = function()
  local dir = open('geometry.py')
  local found = assert(intelligence().references(dir .. 'shapes.py', 11, 5))
  local places = brief(found.items)
  table.sort(places)
  H.eq({ 'geometry.py:1:20', 'geometry.py:5:12', 'geometry.py:5:35', 'report.py:1:20', 'report.py:6:28',
    'shapes.py:11:5 decl' }, places, 'references')
  local first = assert(intelligence().references(dir .. 'shapes.py', 11, 5, 2))
  H.eq(2, #first.items, 'kept')
  H.eq(4, first.more, 'counted')
end

T['a workspace symbol is found by part of its name, in a file not open'] = function()
  local dir = open('report.py')
  local found = assert(intelligence().workspace_symbols(dir .. 'report.py', 'Circ'))
  local circle = vim.tbl_filter(function(p)
    return p.name == 'Circle'
  end, found.items)
  H.eq({ { path = dir .. 'shapes.py', line = 6, column = 7, text = 'class Circle(Shape):', name = 'Circle', kind = 'Class' } },
    circle, 'Circle')
end

T['document symbols nest methods under their classes'] = function()
  local dir = open('shapes.py')
  local found = assert(intelligence().document_symbols(dir .. 'shapes.py'))
  H.eq({ 'Shape', 'area', 'Circle', 'area', 'make_circle' }, vim.tbl_map(function(p)
    return p.name
  end, found.items), 'names')
  H.eq({ name = 'area', kind = 'Method', container = 'Circle', path = dir .. 'shapes.py', line = 7, column = 9,
    text = '    def area(self) -> float:' }, found.items[4], 'a method')
end

T['incoming calls list each call site with its caller; outgoing calls the callees'] = function()
  local dir = open('shapes.py')
  local found = assert(intelligence().call_hierarchy(dir .. 'shapes.py', 11, 5, 'incoming'))
  local callers = vim.tbl_map(function(p)
    return p.name .. '@' .. vim.fn.fnamemodify(p.path, ':t') .. ':' .. p.line .. ':' .. p.column
  end, found.items)
  table.sort(callers)
  H.eq({ 'report@report.py:6:28', 'total_area@geometry.py:5:12', 'total_area@geometry.py:5:35' }, callers, 'callers')
  local out = assert(intelligence().call_hierarchy(dir .. 'geometry.py', 4, 5, 'outgoing'))
  H.truthy(vim.tbl_contains(vim.tbl_map(function(p)
    return p.name .. '@' .. vim.fn.fnamemodify(p.path, ':t') .. ':' .. p.line
  end, out.items), 'make_circle@shapes.py:11'), 'make_circle among the callees: ' .. vim.inspect(out))
end

T['rename gives the new text of every affected file and changes no buffer and no file'] = function()
  local dir = open('report.py')
  local before = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  local found = assert(intelligence().rename(dir .. 'report.py', 6, 28, 'make_disc'))
  local function renamed(name)
    return (FILES[name]:gsub('make_circle', 'make_disc'))
  end
  H.eq({
    { path = dir .. 'geometry.py', text = renamed('geometry.py') },
    { path = dir .. 'report.py', text = renamed('report.py') },
    { path = dir .. 'shapes.py', text = renamed('shapes.py') },
  }, found.files, 'the edited texts')
  for name, text in pairs(FILES) do
    H.eq(text, disk(dir .. name), name .. ' on disk')
  end
  H.eq(before, vim.api.nvim_buf_get_lines(0, 0, -1, false), 'the buffer')
  H.eq(false, vim.bo.modified, 'modified')
end

T['places outside the file, missing files and a feature the server lacks are refused, each saying why'] = function()
  local dir = open('report.py')
  local _, why = intelligence().definition(dir .. 'report.py', 99, 1)
  H.eq('line 99 is outside ' .. dir .. 'report.py (1..6)', why, 'a line outside')
  -- 23 characters in 26 bytes.
  _, why = intelligence().references(dir .. 'report.py', 5, 25)
  H.eq('column 25 is outside line 5 of ' .. dir .. 'report.py (1..24)', why, 'a column outside (characters, not bytes)')
  _, why = intelligence().document_symbols(dir .. 'nothing.py')
  H.eq('no such file: ' .. dir .. 'nothing.py', why, 'a missing file')
  _, why = intelligence().call_hierarchy(dir .. 'shapes.py', 11, 5, 'sideways')
  H.eq('direction must be incoming or outgoing, not sideways', why, 'a direction')
  _, why = intelligence().rename(dir .. 'report.py', 6, 28, 'two\nlines')
  H.eq('the new name must be one non-empty line', why, 'a bad name')
  -- basedpyright 1.40.1 declares no typeHierarchyProvider: that is said, not answered as "none".
  local none
  none, why = intelligence().type_hierarchy(dir .. 'shapes.py', 6, 7, 'supertypes')
  H.eq(nil, none, 'no answer')
  H.truthy(why:find('^unsupported: ') and why:find('typeHierarchyProvider', 1, true), 'unsupported: ' .. tostring(why))
end


-- The companion's questions (codeQuery through attach), answered once each as codeAnswer.

--- The plugin attached through a fake attach process, in the project, with name open.
local function asked(name)
  local dir = open(name)
  local fake = H.fake_attach()
  require('companion4j').setup()
  H.attached()
  return dir, fake
end

--- Sends a codeQuery and returns the params of its codeAnswer (waited for up to 15 s: a file's
--- first analysis takes about 1.5 s).
local function ask(fake, query)
  fake.say({ method = 'codeQuery', params = query })
  return fake.answer('codeAnswer', { result = {} }, 15000).params
end

T['codeQuery definition is answered with the place and its line, by the query id'] = function()
  local dir, fake = asked('report.py')
  H.eq({ id = '00000000000000a1', results = { { path = dir .. 'shapes.py', line = 11, column = 5, text = 'def make_circle() -> Circle:' } } },
    ask(fake, { id = '00000000000000a1', kind = 'definition', path = dir .. 'report.py', line = 6, column = 28 }), 'the answer')
end

T['codeQuery references mark the declaration; workspace symbols need no path; incoming calls name callers'] = function()
  local dir, fake = asked('geometry.py')
  local refs = ask(fake, { id = '00000000000000b7', kind = 'references', path = dir .. 'shapes.py', line = 11, column = 5 })
  H.eq('00000000000000b7', refs.id, 'the id')
  local places = brief(refs.results)
  table.sort(places)
  H.eq({ 'geometry.py:1:20', 'geometry.py:5:12', 'geometry.py:5:35', 'report.py:1:20', 'report.py:6:28',
    'shapes.py:11:5 decl' }, places, 'references')
  local symbols = ask(fake, { id = '00000000000000b8', kind = 'workspaceSymbols', query = 'Circ' })
  H.truthy(vim.tbl_contains(vim.tbl_map(function(r)
    return r.name .. ' ' .. r.kind .. ' ' .. vim.fn.fnamemodify(r.path, ':t') .. ':' .. r.line .. ':' .. r.column .. ' ' .. r.text
  end, symbols.results), 'Circle class shapes.py:6:7 class Circle(Shape):'), 'Circle among ' .. vim.inspect(symbols))
  local calls = ask(fake, { id = '00000000000000b9', kind = 'callHierarchy', path = dir .. 'shapes.py', line = 11, column = 5, direction = 'incoming' })
  local callers = vim.tbl_map(function(r)
    return r.name .. '@' .. vim.fn.fnamemodify(r.path, ':t') .. ':' .. r.line .. ':' .. r.column
  end, calls.results)
  table.sort(callers)
  H.eq({ 'report@report.py:6:28', 'total_area@geometry.py:5:12', 'total_area@geometry.py:5:35' }, callers, 'callers')
end

T['codeQuery rename answers every file new text and applies none'] = function()
  local dir, fake = asked('report.py')
  local answer = ask(fake, { id = '00000000000000c1', kind = 'rename', path = dir .. 'shapes.py', line = 11, column = 5, newName = 'make_disc' })
  local function renamed(name)
    return (FILES[name]:gsub('make_circle', 'make_disc'))
  end
  H.eq({ id = '00000000000000c1', files = {
    { path = dir .. 'geometry.py', content = renamed('geometry.py') },
    { path = dir .. 'report.py', content = renamed('report.py') },
    { path = dir .. 'shapes.py', content = renamed('shapes.py') },
  } }, answer, 'the answer')
  for name, text in pairs(FILES) do
    H.eq(text, disk(dir .. name), name .. ' on disk')
  end
  H.eq(false, vim.bo.modified, 'the buffer')
end

T['codeQuery that cannot be answered gets an error saying why, never an empty list'] = function()
  local dir, fake = asked('shapes.py')
  local function error_of(query)
    local answer = ask(fake, query)
    H.eq(nil, answer.results, 'results of ' .. vim.inspect(query))
    return answer.error
  end
  H.eq('no language server of ' .. dir .. 'shapes.py offers typeHierarchyProvider',
    error_of({ id = '00000000000000d1', kind = 'typeHierarchy', path = dir .. 'shapes.py', line = 6, column = 7, direction = 'supertypes' }),
    'a feature the server lacks')
  H.eq('line 99 is outside ' .. dir .. 'shapes.py (1..12)',
    error_of({ id = '00000000000000d2', kind = 'definition', path = dir .. 'shapes.py', line = 99, column = 1 }), 'a line outside')
  H.eq('the path is not an absolute path without control characters',
    error_of({ id = '00000000000000d3', kind = 'documentSymbols', path = 'shapes.py' }), 'a relative path')
  H.eq('unknown kind of question: implementations',
    error_of({ id = '00000000000000d4', kind = 'implementations', path = dir .. 'shapes.py' }), 'an unknown kind')
  fake.say({ method = 'codeQuery', params = { id = 'q"\n', kind = 'documentSymbols', path = dir .. 'shapes.py' } })
  H.truthy(H.said('refused a question about code whose id is not sixteen hex digits'), 'an id not of its form')
  vim.wait(100)
  H.eq(0, #fake.sent_with('codeAnswer'), 'answers to it')
end

T['codeQuery questions arriving together are each answered once, in order'] = function()
  local dir, fake = asked('shapes.py')
  fake.chunk({ vim.json.encode({ method = 'codeQuery', params = { id = '00000000000000e1', kind = 'documentSymbols', path = dir .. 'shapes.py' } }),
    vim.json.encode({ method = 'codeQuery', params = { id = '00000000000000e2', kind = 'definition', path = dir .. 'geometry.py', line = 5, column = 12 } }), '' })
  H.wait_for(function()
    return #fake.sent_with('codeAnswer') >= 2
  end, 'two answers', 15000)
  vim.wait(200)
  local answers = fake.sent_with('codeAnswer')
  H.eq({ '00000000000000e1', '00000000000000e2' }, vim.tbl_map(function(m)
    return m.params.id
  end, answers), 'answered once each, in order')
  H.eq(5, #answers[1].params.results, 'symbols of shapes.py')
  H.eq(dir .. 'shapes.py', answers[2].params.results[1].path, 'the definition')
end


T['codeAnswer another editor gave first goes unmentioned; one that did not arrive is said'] = function()
  local dir, fake = asked('shapes.py')
  fake.say({ method = 'codeQuery', params = { id = '00000000000000f1', kind = 'documentSymbols', path = dir .. 'shapes.py' } })
  fake.answer('codeAnswer', { error = { code = 'unknownQuery', message = 'no query 00000000000000f1 is pending' } }, 15000)
  fake.say({ method = 'codeQuery', params = { id = '00000000000000f2', kind = 'documentSymbols', path = dir .. 'shapes.py' } })
  fake.answer('codeAnswer', { error = { code = 'failed', message = 'the companion could not be reached' } }, 15000)
  H.eq({ 'companion4j: the answer to a question about code did not arrive: the companion could not be reached' },
    vim.tbl_map(function(m)
      return m.text
    end, vim.tbl_filter(function(m)
      return m.text:find('question about code', 1, true) ~= nil
    end, H.messages)), 'the messages')
end

return T
