-- Changes of several files (a rename the language server computed), reviewed as one: a tab per
-- file, its text before on the left and the proposal on the right, as a diff. One answer covers
-- every file: :Companion4jAccept writes them all, with the edits made in the proposals;
-- :Companion4jReject, or closing any of its tabs, writes none. Answers name the change by its id.
local attach = require('companion4j.attach')
local review = require('companion4j.review')

local M = {}

--- id -> { id, proposer, files = { { path, proposed, buf, tab } }, closing, answering }
local open = {}
--- ids of changes that ended, so a late changeOpened cannot bring one back
local ended = {}
local group = vim.api.nvim_create_augroup('companion4j_change', { clear = true })

local function notify(text, level)
  vim.notify('companion4j: ' .. text, level or vim.log.levels.INFO)
end

local outcomes = {
  accepted = 'was accepted',
  rejected = 'was rejected',
  changedOnDisk = 'ended: files changed on disk since it was proposed; nothing was written',
  stopped = 'ended: the companion stopped',
}

-- Error codes of an answer after which the change is over: the answer changed nothing.
local over = { ended = true, unknownChange = true, changedOnDisk = true }

-- The change's files for a message: their names while short, else their count. A message wider
-- than the screen waits for Enter, which would hold up everything else Neovim does.
local function names(c)
  local list = table.concat(vim.tbl_map(function(f)
    return review.relative(f.path)
  end, c.files), ', ')
  return #list <= 40 and list or (#c.files .. ' files')
end

--- Closes a change's tabs without answering it.
local function dispose(c)
  open[c.id] = nil
  ended[c.id] = true
  c.closing = true
  for _, f in ipairs(c.files) do
    if f.tab and vim.api.nvim_tabpage_is_valid(f.tab) and #vim.api.nvim_list_tabpages() > 1 then
      vim.cmd('tabclose ' .. vim.api.nvim_tabpage_get_number(f.tab))
    end
    if f.buf and vim.api.nvim_buf_is_valid(f.buf) then
      vim.api.nvim_buf_delete(f.buf, { force = true })
    end
  end
end

-- Reloads the loaded buffers of the change's files, now and as their files are written: the
-- companion writes them after the answer, which may be before or after its word reaches us.
local function reload(c, texts)
  local stops = {}
  for _, f in ipairs(c.files) do
    local buf = vim.fn.bufnr(f.path)
    if buf > 0 and vim.api.nvim_buf_is_loaded(buf) and not vim.bo[buf].modified then
      -- Silently: one line per file reloaded would make Neovim wait for Enter.
      vim.cmd('silent! checktime ' .. buf)
      if texts then
        table.insert(stops, review.reload_when_written(f.path, texts[f.path]))
      end
    end
  end
  return function()
    for _, stop in ipairs(stops) do
      stop()
    end
  end
end

local function answer(c, accept)
  if c.answering then
    return
  end
  c.answering = true
  local edited, texts = {}, {}
  for _, f in ipairs(c.files) do
    texts[f.path] = vim.api.nvim_buf_is_valid(f.buf) and review.buffer_text(f.buf) or f.proposed
    if texts[f.path] ~= f.proposed then
      table.insert(edited, { path = f.path, content = texts[f.path] })
    end
  end
  local stop_watching = accept and reload(c, texts) or function() end
  local method = accept and 'acceptChange' or 'rejectChange'
  attach.request(method, { change = c.id, files = accept and #edited > 0 and edited or nil }, function(result, err)
    c.answering = false
    if result then
      notify((accept and 'accepted' or 'rejected') .. ' the change of ' .. names(c))
      return dispose(c)
    end
    stop_watching()
    if over[err.code] then
      notify(tostring(err.message), vim.log.levels.WARN)
      dispose(c)
    elseif not c.closing then
      notify(tostring(err.message) .. '; the change stays open: answer again', vim.log.levels.WARN)
    else
      notify(tostring(err.message) .. '; the change of ' .. names(c) .. ' still waits on the review page', vim.log.levels.WARN)
    end
  end)
end

--- Why a change object from the companion cannot be shown, or nil: its id reaches buffer names
--- and the answers, its paths buffer names and Ex commands.
function M.refused(change)
  if not review.is_diff_id(change.id) then
    return 'refused a change whose id is not sixteen hex digits'
  elseif type(change.files) ~= 'table' or #change.files == 0 then
    return 'refused a change without files'
  end
  for _, f in ipairs(change.files) do
    if type(f) ~= 'table' or not review.is_path(f.path) then
      return 'refused a change with a file that is not an absolute path without control characters'
    elseif type(f.newContent) ~= 'string' or type(f.originalContent) ~= 'string' then
      return 'refused a change without the texts of ' .. review.relative(f.path)
    end
  end
end

-- One file of change c in a tab of its own; the n-th of the change.
local function show_file(c, f, n)
  local rel = review.relative(f.path)
  local filetype = review.filetype_of(f.path)
  filetype = filetype ~= '' and filetype or nil
  vim.cmd('tabnew')
  local before = review.scratch('companion://' .. c.id .. '/original/' .. rel, review.split_lines(f.originalContent), filetype)
  vim.bo[before].buftype = 'nofile'
  vim.bo[before].modifiable = false
  vim.cmd('diffthis')
  vim.cmd('rightbelow vertical new')
  local lines, eol = review.split_lines(f.newContent)
  local buf = review.scratch('companion://' .. c.id .. '/' .. rel, lines, filetype)
  vim.bo[buf].buftype = 'acwrite'
  vim.bo[buf].eol = eol
  vim.bo[buf].fixeol = false
  vim.bo[buf].modified = false
  vim.b[buf].companion4j_change = c.id
  vim.cmd('diffthis')
  local file = { path = f.path, proposed = f.newContent, buf = buf, tab = vim.api.nvim_get_current_tabpage() }
  vim.api.nvim_create_autocmd('BufWriteCmd', {
    group = group,
    buffer = buf,
    callback = function()
      -- Kept for the one answer that covers every file, so that the user can edit several.
      vim.bo[buf].modified = false
      notify('your edit of ' .. rel .. ' goes with the change when you accept it: :Companion4jAccept')
    end,
  })
  vim.api.nvim_create_autocmd('BufWipeout', {
    group = group,
    buffer = buf,
    callback = function()
      if not c.closing then
        c.closing = true
        open[c.id] = nil
        -- The user closed a file of the change: that is a no to all of it.
        vim.schedule(function()
          answer(c, false)
          dispose(c)
        end)
      end
    end,
  })
  vim.wo.statusline = (' %s · %d/%d %s · :Companion4jAccept all, :Companion4jReject'):format(
    c.proposer:gsub('%%', '%%%%'), n, #c.files, rel:gsub('%%', '%%%%'))
  return file
end

--- Opens a change (a change object of the editor API) as a tab per file, the first one in front.
function M.show(change)
  local refused = M.refused(change)
  if refused then
    return notify(refused, vim.log.levels.ERROR)
  end
  if open[change.id] or ended[change.id] then
    return
  end
  local c = { id = change.id, files = {},
    proposer = type(change.proposerName) == 'string' and change.proposerName or 'a CLI' }
  open[c.id] = c
  for n, f in ipairs(change.files) do
    c.files[n] = show_file(c, f, n)
  end
  vim.api.nvim_set_current_tabpage(c.files[1].tab)
  notify(c.proposer .. ': one change of ' .. names(c) .. ' to review; :Companion4jAccept, :Companion4jReject')
end

--- A changeClosed event: the change ended (answered here or elsewhere, or the companion stopped).
function M.closed(event)
  if not review.is_diff_id(event.id) then
    return
  end
  ended[event.id] = true
  local c = open[event.id]
  if not c then
    return
  end
  dispose(c)
  if event.outcome == 'accepted' then
    reload(c)
  end
  -- The answer this editor sent reports itself.
  if not c.answering then
    notify('the change of ' .. names(c) .. ' ' .. (outcomes[event.outcome] or ('ended: ' .. tostring(event.outcome))))
  end
end

--- After a (re-)attach: open what is pending when show is true, and close what no longer is.
function M.sync(pending, show)
  local ids = {}
  for _, c in ipairs(pending) do
    ids[tostring(c.id)] = true
    if show then
      M.show(c)
    end
  end
  for id, c in pairs(open) do
    if not ids[id] then
      dispose(c)
      notify('the change of ' .. names(c) .. ' is no longer pending')
    end
  end
end

--- The change shown in the current tab, if any.
local function current()
  local tab = vim.api.nvim_get_current_tabpage()
  for _, c in pairs(open) do
    for _, f in ipairs(c.files) do
      if f.tab == tab then
        return c
      end
    end
  end
end

function M.in_change_tab()
  return current() ~= nil
end

--- Answers the change of the current tab; false when this tab shows none.
function M.answer_current(accept)
  local c = current()
  if not c then
    return false
  end
  if not accept then
    c.closing = true
    open[c.id] = nil
  end
  answer(c, accept)
  if not accept then
    dispose(c)
  end
  return true
end

--- The changes on show: { { id, proposer, paths }, … }.
function M.list()
  local list = {}
  for _, c in pairs(open) do
    table.insert(list, { id = c.id, proposer = c.proposer, paths = vim.tbl_map(function(f)
      return f.path
    end, c.files) })
  end
  table.sort(list, function(a, b)
    return a.id < b.id
  end)
  return list
end

return M
