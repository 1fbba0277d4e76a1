-- The companion's questions about code (`codeQuery` from attach, docs/attach.md), answered by the
-- buffer's language servers through companion4j.intelligence: each exactly once, as `codeAnswer`
-- with results, a rename's new file texts (never applied here), or why it cannot be answered.
local attach = require('companion4j.attach')
local intelligence = require('companion4j.intelligence')
local review = require('companion4j.review')

local M = {}

-- Attach gives up on an answer after 25 s; one within 20 s leaves it time to travel.
M.BOUND_MS = 20000

-- The companion shows the first places and counts the rest, of at most this many.
local ALL = 10000

local function notify(text, level)
  vim.notify('companion4j: ' .. text, level or vim.log.levels.INFO)
end

local function places(found)
  return vim.tbl_map(function(p)
    return {
      name = p.name,
      kind = p.kind and p.kind:lower() or nil,
      path = p.path,
      line = p.line,
      column = p.column,
      text = p.text,
      declaration = p.declaration or nil,
    }
  end, found.items)
end

local function with_direction(fn)
  return function(q)
    return fn(q.path, q.line, q.column, q.direction, ALL)
  end
end

-- kind -> function(query) returning a list or a rename's files, or nil and why.
local answers = {
  definition = function(q)
    return intelligence.definition(q.path, q.line, q.column, ALL)
  end,
  references = function(q)
    return intelligence.references(q.path, q.line, q.column, ALL)
  end,
  documentSymbols = function(q)
    return intelligence.document_symbols(q.path, ALL)
  end,
  workspaceSymbols = function(q)
    return intelligence.workspace_symbols(q.path, q.query, ALL)
  end,
  callHierarchy = with_direction(intelligence.call_hierarchy),
  typeHierarchy = with_direction(intelligence.type_hierarchy),
  rename = function(q)
    return intelligence.rename(q.path, q.line, q.column, q.newName)
  end,
}

-- The codeAnswer params of query q: { id, results } or { id, files } or { id, error }.
local function answer_of(q)
  local answer = answers[q.kind]
  if not answer then
    return { id = q.id, error = 'unknown kind of question: ' .. tostring(q.kind) }
  end
  -- The path reaches buffer names and Ex commands: only its documented form is taken. Only
  -- workspace symbols may go without one.
  if not (q.path == nil and q.kind == 'workspaceSymbols') and not review.is_path(q.path) then
    return { id = q.id, error = 'the path is not an absolute path without control characters' }
  end
  local found, why = intelligence.within(M.BOUND_MS, answer, q)
  if not found then
    return { id = q.id, error = (why:gsub('^unsupported: ', '')) }
  elseif found.files then
    return { id = q.id, files = vim.tbl_map(function(f)
      return { path = f.path, content = f.text }
    end, found.files) }
  end
  return { id = q.id, results = places(found) }
end

-- Questions waiting, oldest first, and whether one is being answered: answering waits for the
-- servers (vim.wait runs the main loop), so a question arriving meanwhile waits for its turn.
local queue, busy = {}, false

local function drain()
  if busy then
    return
  end
  busy = true
  while #queue > 0 do
    local q = table.remove(queue, 1)
    local ok, params = pcall(answer_of, q)
    if not ok then
      params = { id = q.id, error = 'the question failed in Neovim: ' .. tostring(params) }
    end
    attach.request('codeAnswer', params, function(_, err)
      -- unknownQuery: another editor answered first, or the asker stopped waiting.
      if err and err.code ~= 'unknownQuery' then
        notify('the answer to a question about code did not arrive: ' .. tostring(err.message), vim.log.levels.WARN)
      end
    end)
  end
  busy = false
end

--- A codeQuery notification: answered once, in order, from the main loop.
function M.query(q)
  -- The id goes back in the answer: only the companion's form (sixteen hex digits) is taken.
  if not review.is_diff_id(q.id) then
    return notify('refused a question about code whose id is not sixteen hex digits', vim.log.levels.ERROR)
  end
  table.insert(queue, q)
  vim.schedule(drain)
end

return M
