-- Proposed edits, reviewed natively: each in a tab of its own, the file on
-- the left and the proposal on the right, as a diff. Writing the proposal
-- accepts it with its text as it is then; closing it rejects it. Answers name
-- the proposal by its id, so they can never reach a newer one.
local attach = require('companion4j.attach')

local M = {}

--- id -> { id, path, buf, tab, closing, answering }
local open = {}
--- ids of proposals that ended, so a late diffOpened cannot bring one back
local ended = {}
local group = vim.api.nvim_create_augroup('companion4j_review', { clear = true })

local function notify(text, level)
  vim.notify('companion4j: ' .. text, level or vim.log.levels.INFO)
end

--- path as the user reads it: relative to the working directory or home.
function M.relative(path)
  return vim.fn.fnamemodify(path, ':~:.')
end

local outcomes = {
  accepted = 'was accepted',
  rejected = 'was rejected',
  closedByClient = 'was withdrawn by the CLI',
  replaced = 'was replaced by a newer proposal',
  clientGone = 'ended: its CLI left',
  stopped = 'ended: the companion stopped',
}

--- Closes a proposal's tab without answering it.
local function dispose(p)
  open[p.id] = nil
  ended[p.id] = true
  p.closing = true
  if vim.api.nvim_tabpage_is_valid(p.tab) and #vim.api.nvim_list_tabpages() > 1 then
    vim.cmd('tabclose ' .. vim.api.nvim_tabpage_get_number(p.tab))
  end
  if vim.api.nvim_buf_is_valid(p.buf) then
    vim.api.nvim_buf_delete(p.buf, { force = true })
  end
end

--- The text of buf as it would be written.
function M.buffer_text(buf)
  local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
  if vim.bo[buf].eol and vim.api.nvim_buf_line_count(buf) > 0 and text ~= '' then
    text = text .. '\n'
  end
  return text
end

-- The CLI writes an accepted file as soon as it has the answer, which can be
-- before the answer's own response reaches us: watch from before asking.
-- A write is seen as it happens (truncated first, then filled), so the buffer
-- reloads a moment after each change, unless it has changes of its own, until
-- it holds what was accepted or 30 s have passed.
-- Returns a function that stops watching.
function M.reload_when_written(path, accepted)
  local uv = vim.uv or vim.loop
  local watcher, settle = uv.new_fs_event(), uv.new_timer()
  local deadline
  local function cancel()
    for _, handle in ipairs({ watcher, settle, deadline }) do
      if not handle:is_closing() then
        handle:close()
      end
    end
  end
  deadline = vim.defer_fn(cancel, 30000)
  local function reload()
    local buf = vim.fn.bufnr(path)
    if buf <= 0 or vim.bo[buf].modified then
      return cancel()
    end
    -- Silently: with a change of several files, one line per file would make Neovim wait for Enter.
    vim.cmd('silent! checktime ' .. buf)
    if M.buffer_text(buf) == accepted then
      cancel()
    end
  end
  watcher:start(path, {}, function()
    if not settle:is_closing() then
      settle:start(50, 0, vim.schedule_wrap(reload))
    end
  end)
  return cancel
end

-- Error codes of an answer (docs/attach.md) after which the proposal is over: nothing was written.
local over = { ended = true, clientGone = true, unknownDiff = true }

local function answer(p, accept)
  if p.answering then
    return
  end
  p.answering = true
  local params = { diff = p.id, content = accept and M.buffer_text(p.buf) or nil }
  local stop_watching = function() end
  if accept and vim.fn.filereadable(p.path) == 1 then
    stop_watching = M.reload_when_written(p.path, params.content)
  end
  attach.request(accept and 'accept' or 'reject', params, function(result, err)
    p.answering = false
    if result then
      notify((accept and 'accepted' or 'rejected') .. ' the edit to ' .. M.relative(p.path)
        .. (accept and '; the CLI writes it' or ''))
      return dispose(p)
    end
    stop_watching()
    if over[err.code] then
      notify(tostring(err.message), vim.log.levels.WARN)
      dispose(p)
    elseif vim.api.nvim_buf_is_valid(p.buf) then
      -- Nothing was answered. A proposal still on show can be answered again.
      open[p.id], p.closing = p, false
      vim.bo[p.buf].modified = accept
      notify(tostring(err.message) .. '; the proposal stays open: answer again', vim.log.levels.WARN)
    else
      notify(tostring(err.message) .. '; the edit to ' .. M.relative(p.path) .. ' still waits on the review page', vim.log.levels.WARN)
    end
  end)
end

--- Makes the current buffer a scratch buffer named name holding lines.
function M.scratch(name, lines, filetype)
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].swapfile = false
  vim.api.nvim_buf_set_name(buf, name)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  if filetype then
    vim.bo[buf].filetype = filetype
  end
  return buf
end

-- vim.filetype.match takes a table from Neovim 0.8 on, a name before.
function M.filetype_of(path)
  if not vim.filetype then
    return ''
  end
  for _, arg in ipairs({ { filename = path }, path }) do
    local ok, ft = pcall(vim.filetype.match, arg)
    if ok and type(ft) == 'string' then
      return ft
    end
  end
  return ''
end

--- The lines of text, and whether it ends with a line end.
function M.split_lines(text)
  local lines = vim.split(text, '\n', { plain = true })
  local eol = #lines > 1 and lines[#lines] == ''
  if eol then
    table.remove(lines)
  end
  return lines, eol
end

--- Whether id has the form of a diff id: sixteen lowercase hex digits (the engine's DiffId).
function M.is_diff_id(id)
  return type(id) == 'string' and #id == 16 and id:match('^[0-9a-f]+$') ~= nil
end

--- Whether path is an absolute path without control characters, fit for a command or a name.
function M.is_path(path)
  return type(path) == 'string' and path:sub(1, 1) == '/' and not path:find('[%z\1-\31\127]')
end

--- Why a diff object from the companion cannot be shown, or nil: its id reaches a buffer
--- name and the answers, its path a buffer name and Ex commands.
function M.refused(diff)
  if not M.is_diff_id(diff.id) then
    return 'refused a proposal whose id is not sixteen hex digits'
  elseif not M.is_path(diff.filePath) then
    return 'refused a proposal whose file is not an absolute path without control characters'
  elseif type(diff.newContent) ~= 'string' then
    return 'refused a proposal without its text'
  end
end

--- Opens a proposal (a diff object of the editor API) in a tab of its own.
function M.show(diff)
  local refused = M.refused(diff)
  if refused then
    return notify(refused, vim.log.levels.ERROR)
  end
  if open[diff.id] or ended[diff.id] then
    return
  end
  local rel = M.relative(diff.filePath)
  local exists = vim.fn.filereadable(diff.filePath) == 1
  if exists then
    vim.cmd('tabedit ' .. vim.fn.fnameescape(diff.filePath))
  else
    vim.cmd('tabnew')
    M.scratch('companion://' .. diff.id .. '/original/' .. rel, {}, nil)
    vim.bo.buftype = 'nofile'
    vim.bo.modifiable = false
  end
  local filetype = exists and vim.bo.filetype or M.filetype_of(diff.filePath)
  vim.cmd('diffthis')
  vim.cmd('rightbelow vertical new')
  local lines, eol = M.split_lines(diff.newContent)
  local buf = M.scratch('companion://' .. diff.id .. '/' .. rel, lines, filetype ~= '' and filetype or nil)
  vim.bo[buf].buftype = 'acwrite'
  vim.bo[buf].eol = eol
  vim.bo[buf].fixeol = false
  vim.bo[buf].modified = false
  vim.b[buf].companion4j_diff = diff.id
  vim.cmd('diffthis')
  local p = { id = diff.id, path = diff.filePath, buf = buf, tab = vim.api.nvim_get_current_tabpage() }
  open[diff.id] = p
  vim.api.nvim_create_autocmd('BufWriteCmd', {
    group = group,
    buffer = buf,
    callback = function()
      -- Written as far as the editor is concerned, so :wq works; a failed
      -- answer marks it modified again.
      vim.bo[buf].modified = false
      answer(p, true)
    end,
  })
  vim.api.nvim_create_autocmd('BufWipeout', {
    group = group,
    buffer = buf,
    callback = function()
      if not p.closing then
        p.closing = true
        open[p.id] = nil
        -- The user closed the proposal: that is a no. The tab goes with it.
        vim.schedule(function()
          answer(p, false)
        end)
      end
    end,
  })
  local what = diff.change == 'new' and 'proposes a new file ' or (diff.change == 'deleted' and 'proposes to empty ' or 'proposes an edit to ')
  notify((diff.clientName or 'a CLI') .. ' ' .. what .. rel .. ': :w accepts, :q rejects')
  -- A message goes when the screen redraws (a terminal's output, say); the proposal's own
  -- statusline keeps saying what it is and how to answer it.
  vim.wo.statusline = ' proposed ' .. rel:gsub('%%', '%%%%') .. ' · :w accepts, :q rejects'
end

--- A diffClosed event: the proposal ended elsewhere (the CLI, another editor).
function M.closed(event)
  if not M.is_diff_id(event.id) then
    return
  end
  ended[event.id] = true
  local p = open[event.id]
  if p then
    dispose(p)
    -- The answer this editor sent reports itself.
    if p.answering then
      return
    end
    notify('the edit to ' .. M.relative(p.path) .. ' ' .. (outcomes[event.outcome] or ('ended: ' .. tostring(event.outcome))))
  end
end

--- After a reconnect: open what is pending, and close what no longer is.
function M.sync(pending, show)
  local ids = {}
  for _, d in ipairs(pending) do
    ids[tostring(d.id)] = true
    if show then
      M.show(d)
    end
  end
  for id, p in pairs(open) do
    if not ids[id] then
      dispose(p)
      notify('the edit to ' .. M.relative(p.path) .. ' is no longer pending')
    end
  end
end

--- The proposal shown in the current tab, if any.
local function current()
  local tab = vim.api.nvim_get_current_tabpage()
  for _, p in pairs(open) do
    if p.tab == tab then
      return p
    end
  end
end

function M.answer_current(accept)
  local p = current()
  if not p then
    return notify('this tab shows no proposed edit', vim.log.levels.WARN)
  end
  if accept then
    answer(p, true)
  else
    p.closing = true
    open[p.id] = nil
    answer(p, false)
  end
end

function M.in_review_tab()
  return current() ~= nil
end

--- The proposals on show: { { id, path, buf }, … }, oldest first.
function M.list()
  local list = {}
  for _, p in pairs(open) do
    table.insert(list, { id = p.id, path = p.path, buf = p.buf })
  end
  table.sort(list, function(a, b)
    return a.buf < b.buf
  end)
  return list
end

return M
