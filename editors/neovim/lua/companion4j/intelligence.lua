-- What the buffer's language servers know, asked through vim.lsp and answered as plain data:
-- definitions, references, symbols, call and type hierarchy, and a rename as the new text of
-- every file it touches, never applied.
--
-- Positions are 1-based lines and characters (code points), like the editor events; each place
-- is { path, line, column, text } with the absolute path and the line's text. Lists hold at most
-- `limit` places, { items, more } with more counting the rest. A failure is nil and a message;
-- a message beginning 'unsupported:' means no language server here can answer at all, which is
-- never the same as an empty answer.
local M = {}

-- Bounds: a server's answer, and the places in one list.
M.TIMEOUT_MS = 10000
M.LIMIT = 100

-- When the question being answered must be done (vim.loop.now() ms), set by within(): a question
-- of several requests (references, a hierarchy) is bounded as a whole, not only each request.
local done_by

-- How long the next wait may take: TIMEOUT_MS, or less when the question's end is nearer.
local function budget()
  return done_by and math.max(0, math.min(M.TIMEOUT_MS, done_by - vim.loop.now())) or M.TIMEOUT_MS
end

--- Runs fn(...) with every wait of this module ending by ms from now; returns what fn returns.
function M.within(ms, fn, ...)
  done_by = vim.loop.now() + ms
  -- Counted, as the answer may hold nils (nil and why).
  local answer = vim.F.pack_len(pcall(fn, ...))
  done_by = nil
  if not answer[1] then
    error(answer[2], 0)
  end
  return unpack(answer, 2, answer.n)
end

local function absolute(path)
  return vim.fn.fnamemodify(path, ':p')
end

-- The buffer of path, loaded hidden when no window shows it (so that the language servers the
-- user's configuration attaches by file type attach to it too), else nil and why.
local function buffer_of(path)
  if type(path) ~= 'string' or path == '' then
    return nil, 'no path given'
  end
  local file = absolute(path)
  if vim.fn.filereadable(file) == 0 then
    return nil, 'no such file: ' .. file
  end
  local buf = vim.fn.bufadd(file)
  if not vim.api.nvim_buf_is_loaded(buf) then
    vim.bo[buf].bufhidden = 'hide'
    vim.fn.bufload(buf)
  end
  return buf
end

-- The text of a file as the user sees it: its buffer when loaded, else the disk.
local function text_of(file)
  local buf = vim.fn.bufnr(file)
  if buf ~= -1 and vim.api.nvim_buf_is_loaded(buf) then
    local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
    return vim.bo[buf].eol and text .. '\n' or text
  end
  local f = io.open(file, 'rb')
  if not f then
    return nil
  end
  local text = f:read('*a')
  f:close()
  return text
end

-- The client's character index of a byte offset in line, and back. Neovim 0.7 negotiates no
-- encoding: its clients speak UTF-16 (basedpyright); utf-8 and utf-32 clients are honoured too.
local function lsp_character(line, byte, encoding)
  if encoding == 'utf-8' then
    return byte
  end
  local utf32, utf16 = vim.str_utfindex(line, math.min(byte, #line))
  return encoding == 'utf-32' and utf32 or utf16
end

local function byte_of(line, character, encoding)
  if encoding == 'utf-8' then
    return math.min(character, #line)
  end
  if encoding == 'utf-32' then
    return #vim.fn.strcharpart(line, 0, character)
  end
  local ok, byte = pcall(vim.str_byteindex, line, character, true)
  return ok and byte or #line
end

-- The clients attached to buf (every running client when buf is nil), those still starting too:
-- vim.lsp.buf_get_clients lists only initialised ones, so a question right after the server
-- started would find none. Neovim numbers clients from 1 as they start; ids of stopped clients
-- stay unused, hence the run of misses.
local function attached(buf)
  local found, misses, id = {}, 0, 0
  while misses < 32 do
    id = id + 1
    local client = vim.lsp.get_client_by_id(id)
    misses = client and 0 or misses + 1
    if client and (buf == nil and not client.is_stopped() or buf ~= nil and vim.lsp.buf_is_attached(buf, id)) then
      table.insert(found, client)
    end
  end
  return found
end

-- The clients attached to buf whose server declares capability, once initialised (bounded).
local function clients_with(buf, capability)
  local found = {}
  for _, client in ipairs(attached(buf)) do
    vim.wait(budget(), function()
      return client.initialized or client.is_stopped()
    end, 10)
    local caps = client.initialized and client.server_capabilities or {}
    if caps[capability] then
      table.insert(found, client)
    end
  end
  if #found == 0 then
    local of = buf and ('of ' .. vim.api.nvim_buf_get_name(buf)) or 'running in this Neovim'
    return nil, 'unsupported: no language server ' .. of .. ' offers ' .. capability
  end
  return found
end

-- Asks each client (params: a table, or a function of the client) and waits, bounded, for every
-- answer: a list of { client, result }.
local function ask(clients, method, params, buf)
  local answers, pending, failure = {}, #clients, nil
  for _, client in ipairs(clients) do
    local sent = client.request(method, type(params) == 'function' and params(client) or params, function(err, result)
      if err then
        failure = method .. ': ' .. (err.message or vim.inspect(err))
      elseif result ~= nil then
        table.insert(answers, { client = client, result = result })
      end
      pending = pending - 1
    end, buf)
    if not sent then
      pending = pending - 1
    end
  end
  local bound = budget()
  if not vim.wait(bound, function()
    return pending == 0
  end, 10) then
    return nil, method .. ': no answer within ' .. bound .. ' ms'
  end
  if failure and #answers == 0 then
    return nil, failure
  end
  return answers
end

-- Where a server points: a URI and an LSP position in the client's encoding, with the fields
-- (name, kind, ...) its place will carry. Made a place only if kept, as that reads the file.
local function spot(uri, position, encoding, fields)
  return { uri = uri, position = position, encoding = encoding, fields = fields or {} }
end

local function key(s)
  return s.uri .. ':' .. s.position.line .. ':' .. s.position.character
end

-- The first `limit` spots as places, and how many more there were; each file is read once.
local function bounded(spots, limit)
  limit = limit or M.LIMIT
  local lines, kept = {}, {}
  for i = 1, math.min(#spots, limit) do
    local s = spots[i]
    local file = vim.uri_to_fname(s.uri)
    lines[file] = lines[file] or vim.split(text_of(file) or '', '\n', { plain = true })
    local text = lines[file][s.position.line + 1] or ''
    local byte = byte_of(text, s.position.character, s.encoding)
    kept[i] = vim.tbl_extend('keep', {
      path = file, line = s.position.line + 1, column = vim.fn.strchars(text:sub(1, byte)) + 1, text = text,
    }, s.fields)
  end
  return { items = kept, more = math.max(#spots - limit, 0) }
end

local function kind_name(kind)
  return vim.lsp.protocol.SymbolKind[kind] or tostring(kind)
end

-- The buffer, and the LSP position params of (line, column) for a client, after checking that
-- the place lies in the file; else nil and why.
local function at(path, line, column)
  local buf, why = buffer_of(path)
  if not buf then
    return nil, why
  end
  local count = vim.api.nvim_buf_line_count(buf)
  if type(line) ~= 'number' or line < 1 or line > count or line % 1 ~= 0 then
    return nil, ('line %s is outside %s (1..%d)'):format(tostring(line), absolute(path), count)
  end
  local text = vim.api.nvim_buf_get_lines(buf, line - 1, line, false)[1]
  local width = vim.fn.strchars(text)
  if type(column) ~= 'number' or column < 1 or column > width + 1 or column % 1 ~= 0 then
    return nil, ('column %s is outside line %d of %s (1..%d)'):format(tostring(column), line, absolute(path), width + 1)
  end
  local byte = #vim.fn.strcharpart(text, 0, column - 1)
  return buf, function(client)
    return {
      textDocument = { uri = vim.uri_from_bufnr(buf) },
      position = { line = line - 1, character = lsp_character(text, byte, client.offset_encoding) },
    }
  end
end

-- Asks the clients of buf that offer capability.
local function ask_buffer(buf, capability, method, params)
  local clients, why = clients_with(buf, capability)
  if not clients then
    return nil, why
  end
  return ask(clients, method, params, buf)
end

-- Asks every client of the place that offers capability, with the place's params (plus extra).
local function ask_at(path, line, column, capability, method, extra)
  local buf, params = at(path, line, column)
  if not buf then
    return nil, params
  end
  local answers, why = ask_buffer(buf, capability, method, function(client)
    return vim.tbl_extend('force', params(client), extra or {})
  end)
  return answers, why, buf
end

-- Location | Location[] | LocationLink[] as spots.
local function locations(answers)
  local spots = {}
  for _, a in ipairs(answers) do
    local list = a.result.uri and { a.result } or a.result
    for _, loc in ipairs(list) do
      local range = loc.range or loc.targetSelectionRange
      table.insert(spots, spot(loc.uri or loc.targetUri, range.start, a.client.offset_encoding))
    end
  end
  return spots
end

--- Where the symbol at (line, column) of path is declared.
function M.definition(path, line, column, limit)
  local answers, why = ask_at(path, line, column, 'definitionProvider', 'textDocument/definition')
  if not answers then
    return nil, why
  end
  return bounded(locations(answers), limit)
end

--- Every use of the symbol at (line, column), its declaration included and marked declaration = true.
function M.references(path, line, column, limit)
  local answers, why = ask_at(path, line, column, 'referencesProvider', 'textDocument/references',
    { context = { includeDeclaration = true } })
  if not answers then
    return nil, why
  end
  local declared = {}
  for _, d in ipairs(locations(ask_at(path, line, column, 'definitionProvider', 'textDocument/definition') or {})) do
    declared[key(d)] = true
  end
  local spots = locations(answers)
  for _, s in ipairs(spots) do
    s.fields.declaration = declared[key(s)]
  end
  return bounded(spots, limit)
end

-- DocumentSymbol[] (a tree) or SymbolInformation[] as spots with name, kind and container.
local function symbols(list, uri, encoding, container, out)
  for _, s in ipairs(list) do
    local start = s.selectionRange and s.selectionRange.start or s.location.range.start
    table.insert(out, spot(s.location and s.location.uri or uri, start, encoding,
      { name = s.name, kind = kind_name(s.kind), container = s.containerName or container }))
    symbols(s.children or {}, uri, encoding, s.name, out)
  end
  return out
end

-- The symbols the servers of path's buffer (every server when params are given and path is nil)
-- offering capability answer to method, with params (else the buffer's document).
local function symbols_of(path, limit, capability, method, params)
  local buf, uri
  if path ~= nil or not params then
    local why
    buf, why = buffer_of(path)
    if not buf then
      return nil, why
    end
    uri = vim.uri_from_bufnr(buf)
  end
  local answers, failure = ask_buffer(buf, capability, method, params or { textDocument = { uri = uri } })
  if not answers then
    return nil, failure
  end
  local out = {}
  for _, a in ipairs(answers) do
    symbols(a.result, uri, a.client.offset_encoding, nil, out)
  end
  return bounded(out, limit)
end

--- The symbols declared in path, outermost first.
function M.document_symbols(path, limit)
  return symbols_of(path, limit, 'documentSymbolProvider', 'textDocument/documentSymbol')
end

--- The symbols of the workspace whose names match query, asked of the language servers of path
--- (a file of the workspace: servers are per project), or of every running server when path is nil.
function M.workspace_symbols(path, query, limit)
  return symbols_of(path, limit, 'workspaceSymbolProvider', 'workspace/symbol', { query = query or '' })
end

-- A call or type hierarchy item as a spot at its name.
local function item_spot(item, encoding)
  return spot(item.uri, item.selectionRange.start, encoding, { name = item.name, kind = kind_name(item.kind) })
end

-- Neovim 0.7 declares no call or type hierarchy in its client capabilities; servers that have them
-- (basedpyright: call hierarchy) answer regardless, so the requests are sent as they are.
-- Prepares a hierarchy at the place (of.capability, of.prepare), then asks of.method (formatted
-- with the direction) for each item it names; each result becomes spots by of.spots.
local function hierarchy(of, path, line, column, direction, limit)
  if not vim.tbl_contains(of.directions, direction) then
    return nil, 'direction must be ' .. table.concat(of.directions, ' or ') .. ', not ' .. tostring(direction)
  end
  local prepared, why, buf = ask_at(path, line, column, of.capability, of.prepare)
  if not prepared then
    return nil, why
  end
  local out = {}
  for _, p in ipairs(prepared) do
    for _, item in ipairs(p.result) do
      local answers, failure = ask({ p.client }, of.method:format(direction), { item = item }, buf)
      if not answers then
        return nil, failure
      end
      for _, a in ipairs(answers) do
        for _, r in ipairs(a.result) do
          vim.list_extend(out, of.spots(r, a.client.offset_encoding))
        end
      end
    end
  end
  return bounded(out, limit)
end

--- Who calls the function at (line, column) (direction 'incoming': one place per call site, named
--- after the caller) or what it calls ('outgoing': one place per callee, at its declaration).
function M.call_hierarchy(path, line, column, direction, limit)
  return hierarchy({
    directions = { 'incoming', 'outgoing' },
    capability = 'callHierarchyProvider',
    prepare = 'textDocument/prepareCallHierarchy',
    method = 'callHierarchy/%sCalls',
    spots = function(call, encoding)
      if not call.from then
        return { item_spot(call.to, encoding) }
      end
      return vim.tbl_map(function(range)
        return spot(call.from.uri, range.start, encoding, { name = call.from.name, kind = kind_name(call.from.kind) })
      end, call.fromRanges)
    end,
  }, path, line, column, direction, limit)
end

--- The direct supertypes or subtypes of the type at (line, column), at their declarations.
--- Neovim has no helper for these requests; they are sent as they are.
function M.type_hierarchy(path, line, column, direction, limit)
  return hierarchy({
    directions = { 'supertypes', 'subtypes' },
    capability = 'typeHierarchyProvider',
    prepare = 'textDocument/prepareTypeHierarchy',
    method = 'typeHierarchy/%s',
    spots = function(item, encoding)
      return { item_spot(item, encoding) }
    end,
  }, path, line, column, direction, limit)
end

-- The text of file with the TextEdits (ranges in encoding) applied, else nil and why.
local function edited(file, edits, encoding)
  local text = text_of(file)
  if not text then
    return nil, 'cannot read ' .. file
  end
  local starts, lines = { 0 }, vim.split(text, '\n', { plain = true })
  for i = 1, #lines do
    starts[i + 1] = starts[i] + #lines[i] + 1
  end
  local function offset(pos)
    local l = pos.line + 1
    if l > #lines then
      return #text
    end
    return starts[l] + byte_of(lines[l], pos.character, encoding)
  end
  -- Applied from the end backwards, so that each offset still holds; equal starts keep their order.
  local sorted = {}
  for i, e in ipairs(edits) do
    sorted[i] = { from = offset(e.range.start), to = offset(e.range['end']), text = e.newText, order = i }
  end
  table.sort(sorted, function(a, b)
    if a.from ~= b.from then
      return a.from > b.from
    end
    return a.order > b.order
  end)
  for _, e in ipairs(sorted) do
    text = text:sub(1, e.from) .. e.text .. text:sub(e.to + 1)
  end
  return text
end

-- vim.lsp.util.apply_workspace_edit would edit the buffers before the user accepted anything:
-- the edits are applied here to each file's text in memory instead.

--- What renaming the symbol at (line, column) to new_name would make of each file it touches:
--- { files = { { path, text } } } sorted by path. Nothing is applied: no buffer and no file
--- changes. A rename that would create, rename or delete files is refused.
function M.rename(path, line, column, new_name)
  if type(new_name) ~= 'string' or new_name == '' or new_name:find('[\r\n]') then
    return nil, 'the new name must be one non-empty line'
  end
  local answers, why = ask_at(path, line, column, 'renameProvider', 'textDocument/rename', { newName = new_name })
  if not answers then
    return nil, why
  end
  local by_file, encodings = {}, {}
  local function add(uri, edits, encoding)
    local file = vim.uri_to_fname(uri)
    by_file[file] = vim.list_extend(by_file[file] or {}, edits)
    encodings[file] = encoding
  end
  for _, a in ipairs(answers) do
    local enc = a.client.offset_encoding
    for _, change in ipairs(a.result.documentChanges or {}) do
      if not change.textDocument then
        return nil, 'the rename would ' .. tostring(change.kind) .. ' a file: not offered as a review'
      end
      add(change.textDocument.uri, change.edits, enc)
    end
    if not a.result.documentChanges then
      for uri, edits in pairs(a.result.changes or {}) do
        add(uri, edits, enc)
      end
    end
  end
  if next(by_file) == nil then
    return nil, 'nothing to rename at line ' .. line .. ', column ' .. column .. ' of ' .. absolute(path)
  end
  local files = {}
  for file, edits in pairs(by_file) do
    local text, unreadable = edited(file, edits, encodings[file])
    if not text then
      return nil, unreadable
    end
    table.insert(files, { path = file, text = text })
  end
  table.sort(files, function(a, b)
    return a.path < b.path
  end)
  return { files = files }
end

return M
