-- Companion4J for Neovim: tells the companion (`companion4j serve`) what you
-- edit, so Qwen Code and Gemini CLI see it as IDE context, and reviews the
-- edits they propose as native diffs. It reaches the companion through one
-- `companion4j attach` process (docs/attach.md). See :help companion4j.
local attach = require('companion4j.attach')
local change = require('companion4j.change')
local code = require('companion4j.code')
local config = require('companion4j.config')
local context = require('companion4j.context')
local review = require('companion4j.review')
local terminal = require('companion4j.terminal')

local M = {}

-- The one owner of the connection state, changed only on the main loop.
local state = {
  started = false, -- setup() ran
  workspace = nil, -- the folder attach serves, the working directory at setup()
  heard = false, -- attach said attached or detached at least once
  attached = nil, -- { port, started, roots } while a companion is attached
  lost = false, -- an attached companion went away
  reason = nil, -- why none is attached, as attach said
  clients = {}, -- id -> label of each connected CLI
  starting = false, -- a companion is being started (autostart or :Companion4jStart)
  leaving = false, -- Neovim quits
}

local function notify(text, level)
  vim.notify('companion4j: ' .. text, level or vim.log.levels.INFO)
end

local function redraw_status()
  vim.cmd('redrawstatus!')
end

local function count(t)
  local n = 0
  for _ in pairs(t) do
    n = n + 1
  end
  return n
end

local function in_review_tab()
  return review.in_review_tab() or change.in_change_tab()
end

--- Where an openFile event asks to go: a window outside the review tabs.
local function open_file(place)
  if not review.is_path(place.path) then
    return notify('refused to open a file that is not an absolute path without control characters', vim.log.levels.ERROR)
  end
  if in_review_tab() then
    for _, tab in ipairs(vim.api.nvim_list_tabpages()) do
      vim.api.nvim_set_current_tabpage(tab)
      if not in_review_tab() then
        break
      end
    end
    if in_review_tab() then
      vim.cmd('tabnew')
    end
  end
  vim.cmd('edit ' .. vim.fn.fnameescape(place.path))
  if type(place.line) == 'number' then
    local line = math.max(1, math.min(place.line, vim.api.nvim_buf_line_count(0)))
    local text = vim.api.nvim_buf_get_lines(0, line - 1, line, false)[1] or ''
    -- byteidx() counts characters the same way on every Neovim; -1 past the end.
    local col = type(place.character) == 'number' and vim.fn.byteidx(text, place.character - 1) or 0
    if col < 0 then
      col = #text
    end
    vim.api.nvim_win_set_cursor(0, { line, col })
  end
end

-- Opens a proposal (show(p)) once the user is not typing a command or answering a
-- prompt, where switching tabs would get in the way (or is not allowed).
local function show_when_possible(show, p, what)
  local mode = vim.api.nvim_get_mode()
  if mode.blocking or mode.mode:match('^[cr]') then
    return vim.defer_fn(function()
      show_when_possible(show, p, what)
    end, 300)
  end
  local ok, err = pcall(show, p)
  if not ok then
    notify('cannot show ' .. what .. ': ' .. tostring(err), vim.log.levels.ERROR)
  end
end

-- A proposal (a diff, or a change of several files) as it arrives, with the module that shows
-- it: refused, shown, or with open_diffs off announced by announcement() for :Companion4jReview.
local function arrived(module, p, what, announcement)
  local refused = module.refused(p)
  if refused then
    notify(refused, vim.log.levels.ERROR)
  elseif config.values.open_diffs then
    show_when_possible(module.show, p, what)
  else
    notify(announcement() .. ': :Companion4jReview')
  end
end

local handlers = {
  attached = function(a)
    local s = type(a.state) == 'table' and a.state or {}
    state.heard, state.lost, state.reason, state.starting = true, false, nil, false
    state.attached = { port = a.port, started = a.started == true, roots = s.workspaceRoots }
    state.clients = {}
    for _, c in ipairs(s.clients or {}) do
      state.clients[c.id] = c.label or c.name
    end
    review.sync(s.pendingDiffs or {}, config.values.open_diffs)
    change.sync(s.pendingChanges or {}, config.values.open_diffs)
    context.report_current()
  end,
  detached = function(d)
    local was = state.attached ~= nil
    state.heard, state.attached, state.clients = true, nil, {}
    state.lost = state.lost or was
    state.reason = type(d.reason) == 'string' and d.reason or nil
    if was then
      notify('lost the companion; looking for it again', vim.log.levels.WARN)
    end
  end,
  diffOpened = function(d)
    arrived(review, d, 'the edit to ' .. tostring(d.filePath), function()
      return (d.clientName or 'a CLI') .. ' proposes an edit to ' .. vim.fn.fnamemodify(d.filePath, ':~:.')
    end)
  end,
  diffClosed = review.closed,
  changeOpened = function(c)
    arrived(change, c, 'the change ' .. tostring(c.id), function()
      return (c.proposerName or 'a CLI') .. ' proposes one change of ' .. #c.files .. ' files'
    end)
  end,
  changeClosed = change.closed,
  codeQuery = code.query,
  clientConnected = function(c)
    state.clients[c.id] = c.label or c.name
  end,
  clientDisconnected = function(c)
    state.clients[c.id] = nil
  end,
  openFile = open_file,
  error = function(e)
    -- An event sent as the companion went away went nowhere, as none goes while detached.
    if e.method ~= 'event' or state.attached then
      notify(tostring(e.message), vim.log.levels.WARN)
    end
  end,
}

local function on_notification(method, params)
  local handler = handlers[method]
  if handler then
    local ok, err = pcall(handler, params)
    if not ok then
      notify('cannot handle ' .. method .. ': ' .. tostring(err), vim.log.levels.ERROR)
    end
    redraw_status()
  end
end

local function on_exit(code, stderr)
  state.heard, state.attached, state.clients, state.starting = true, nil, {}, false
  state.reason = 'companion4j attach ended' .. (stderr ~= '' and (': ' .. stderr) or (' (exit ' .. code .. ')'))
  redraw_status()
  if not state.leaving then
    notify(state.reason .. '; :Companion4jStart runs it again', vim.log.levels.ERROR)
  end
end

--- Runs `companion4j attach` for the working directory; with start, it starts a companion when
--- none serves the directory. Returns true when it runs.
local function run_attach(start)
  local argv = { config.values.command, 'attach', '--workspace', state.workspace }
  if start then
    table.insert(argv, '--start')
  end
  state.heard = false
  if not attach.start(argv, { notification = on_notification, exit = on_exit }) then
    state.heard, state.reason = true, 'cannot run ' .. config.values.command
    notify(state.reason .. '; put it on PATH or set the command option (:checkhealth companion4j)', vim.log.levels.ERROR)
    return false
  end
  state.starting = start
  return true
end

--- Waits (at most 15 s) until attach has said whether a companion is attached.
local function await_word()
  vim.wait(15000, function()
    return state.heard
  end, 10)
end

--- Starts a companion for the working directory, run by the attach process.
function M.start()
  if state.attached then
    return notify('a companion already serves ' .. state.workspace)
  end
  if not attach.running() then
    if run_attach(true) then
      notify('starting the companion for ' .. state.workspace)
      redraw_status()
    end
    return
  end
  state.starting = true
  redraw_status()
  notify('starting the companion for ' .. state.workspace)
  attach.request('start', nil, function(result, err)
    state.starting = false
    redraw_status()
    if not result then
      notify('cannot start a companion: ' .. tostring(err.message), vim.log.levels.ERROR)
    elseif not result.started then
      notify('a companion already serves ' .. state.workspace)
    end
  end)
end

--- Sets the options (see :help companion4j-options) and attaches to the companion.
function M.setup(opts)
  config.set(opts)
  if state.started then
    return
  end
  state.started = true
  state.workspace = vim.fn.getcwd()
  local group = vim.api.nvim_create_augroup('companion4j', { clear = true })
  context.attach(group, function(event)
    -- While none is attached, events would go nowhere: `attached` brings the companion up to date.
    if state.attached then
      attach.notify('event', event)
    end
  end)
  vim.api.nvim_create_autocmd('VimLeavePre', {
    group = group,
    callback = function()
      state.leaving = true
      attach.stop()
    end,
  })
  run_attach(config.values.autostart)
end

--- For the statusline: "C4J off", "C4J 2 CLIs", "C4J 1 CLI · 1 to review".
function M.statusline()
  if not state.attached then
    return state.starting and 'C4J starting' or (state.lost and 'C4J gone' or 'C4J off')
  end
  local clis = count(state.clients)
  local text = 'C4J ' .. clis .. (clis == 1 and ' CLI' or ' CLIs')
  local pending = #review.list() + #change.list()
  if pending > 0 then
    text = text .. ' · ' .. pending .. ' to review'
  end
  return text
end

--- The proposals on show, oldest first: { { id, path, buf }, … }.
function M.proposals()
  return review.list()
end

--- The changes of several files on show: { { id, proposer, paths = { '/abs/file', … } }, … }.
function M.changes()
  return change.list()
end

function M.accept()
  if not change.answer_current(true) then
    review.answer_current(true)
  end
end

function M.reject()
  if not change.answer_current(false) then
    review.answer_current(false)
  end
end

--- Opens every pending proposal and change that is not on show yet.
function M.review()
  local s, err = attach.request_sync('state', nil)
  if not s then
    return notify(tostring(err.message), vim.log.levels.WARN)
  end
  local pending, changes = s.pendingDiffs or {}, s.pendingChanges or {}
  if #pending + #changes == 0 then
    return notify('no proposed edit is pending')
  end
  review.sync(pending, true)
  change.sync(changes, true)
end

--- Whether a companion is attached, waited for while attach has not said yet: { port, started,
--- roots }, or nil and why not.
function M.companion()
  await_word()
  if state.attached then
    return state.attached
  end
  local none = 'no companion serves ' .. (state.workspace or vim.fn.getcwd())
  return nil, (state.reason and state.reason ~= none) and (none .. ' (' .. state.reason .. ')') or none
end

--- What the status command prints; never the token.
function M.status()
  local c, why = M.companion()
  if not c then
    return why .. '; start one with :Companion4jStart or `companion4j serve`'
  end
  local lines = {
    'companion: port ' .. tostring(c.port) .. (c.started and ', started by this Neovim' or ''),
    'workspace: ' .. table.concat(type(c.roots) == 'table' and c.roots or {}, ', '),
  }
  if count(state.clients) == 0 then
    table.insert(lines, 'CLIs: none connected; start one with :Companion4jRun qwen')
  else
    for _, label in pairs(state.clients) do
      table.insert(lines, 'CLI: ' .. label)
    end
  end
  for _, p in ipairs(review.list()) do
    table.insert(lines, 'to review: ' .. vim.fn.fnamemodify(p.path, ':~:.') .. ' (' .. p.id .. ')')
  end
  for _, c in ipairs(change.list()) do
    table.insert(lines, 'to review: one change of ' .. #c.paths .. ' files by ' .. c.proposer .. ' (' .. c.id .. ')')
  end
  return table.concat(lines, '\n')
end

M.run = terminal.run

return M
