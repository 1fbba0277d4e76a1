-- Companion4J for Neovim: tells the companion (`companion4j serve`) what you
-- edit, so Qwen Code and Gemini CLI see it as IDE context, and reviews the
-- edits they propose as native diffs. See :help companion4j.
local companion = require('companion4j.companion')
local config = require('companion4j.config')
local context = require('companion4j.context')
local review = require('companion4j.review')

local M = {}

local RETRY_MS = 2000

-- The one owner of the connection state, changed only on the main loop.
local state = {
  started = false,
  job = nil, -- the curl following the event stream
  proving = false, -- a companion is being asked to prove itself
  connected = false,
  clients = {}, -- id -> label of each connected CLI
  starting = false, -- a companion started by autostart or :Companion4jStart
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

--- Where an openFile event asks to go: a window outside the review tabs.
local function open_file(place)
  if not companion.is_path(place.path) then
    return notify('refused to open a file that is not an absolute path without control characters', vim.log.levels.ERROR)
  end
  if review.in_review_tab() then
    for _, tab in ipairs(vim.api.nvim_list_tabpages()) do
      vim.api.nvim_set_current_tabpage(tab)
      if not review.in_review_tab() then
        break
      end
    end
    if review.in_review_tab() then
      vim.cmd('tabnew')
    end
  end
  vim.cmd('edit ' .. vim.fn.fnameescape(place.path))
  if place.line then
    local line = math.min(place.line, vim.api.nvim_buf_line_count(0))
    local text = vim.api.nvim_buf_get_lines(0, line - 1, line, false)[1] or ''
    -- byteidx() counts characters the same way on every Neovim; -1 past the end.
    local col = place.character and vim.fn.byteidx(text, place.character - 1) or 0
    if col < 0 then
      col = #text
    end
    vim.api.nvim_win_set_cursor(0, { line, col })
  end
end

local function refresh_state()
  companion.request('GET', '/state', nil, function(status, body)
    if status ~= 200 then
      return
    end
    local ok, s = pcall(vim.json.decode, body)
    if not ok then
      return
    end
    state.clients = {}
    for _, c in ipairs(s.clients or {}) do
      state.clients[c.id] = c.label or c.name
    end
    review.sync(s.pendingDiffs or {}, config.values.open_diffs)
    redraw_status()
  end)
end

-- Opens a proposal once the user is not typing a command or answering a
-- prompt, where switching tabs would get in the way (or is not allowed).
local function show_when_possible(d)
  local mode = vim.api.nvim_get_mode()
  if mode.blocking or mode.mode:match('^[cr]') then
    return vim.defer_fn(function()
      show_when_possible(d)
    end, 300)
  end
  local ok, err = pcall(review.show, d)
  if not ok then
    notify('cannot show the edit to ' .. d.filePath .. ': ' .. tostring(err), vim.log.levels.ERROR)
  end
end

local handlers = {
  diffOpened = function(d)
    local refused = review.refused(d)
    if refused then
      notify(refused, vim.log.levels.ERROR)
    elseif config.values.open_diffs then
      show_when_possible(d)
    else
      notify((d.clientName or 'a CLI') .. ' proposes an edit to ' .. vim.fn.fnamemodify(d.filePath, ':~:.') .. ': :Companion4jReview')
    end
  end,
  diffClosed = review.closed,
  clientConnected = function(c)
    state.clients[c.id] = c.label or c.name
  end,
  clientDisconnected = function(c)
    state.clients[c.id] = nil
  end,
  openFile = open_file,
}

local follow

-- The event being read from the stream, and its data lines.
local event, data = nil, {}

local function on_line(line)
  if not state.connected then
    state.connected = true
    event, data = nil, {}
    refresh_state()
    context.report_diagnostics(vim.api.nvim_get_current_buf())
  end
  if line == '' then
    local handler = event and handlers[event]
    if handler and #data > 0 then
      local ok, payload = pcall(vim.json.decode, table.concat(data, '\n'))
      if ok and type(payload) == 'table' then
        handler(payload)
        redraw_status()
      end
    end
    event, data = nil, {}
  elseif line:sub(1, 6) == 'event:' then
    event = vim.trim(line:sub(7))
  elseif line:sub(1, 5) == 'data:' then
    table.insert(data, (line:sub(6):gsub('^ ', '')))
  end
end

local function on_stream_end()
  local was = state.connected
  state.job, state.connected = nil, false
  state.clients = {}
  redraw_status()
  if was then
    notify('lost the companion; looking for it again', vim.log.levels.WARN)
  end
  vim.defer_fn(follow, RETRY_MS)
end

-- Says once why no companion is followed, when the one a lock names failed its proof.
local said_gone
local function say_gone()
  local why = companion.gone()
  if why and why ~= said_gone then
    notify(why, vim.log.levels.WARN)
  end
  said_gone = why
  redraw_status()
end

-- Follows the proven companion's event stream, and keeps looking for a companion
-- (it may restart with a new port and token) while none is followed.
follow = function()
  if state.job or state.proving then
    return
  end
  state.proving = true
  companion.connect(function(c)
    state.proving = false
    say_gone()
    local job = c and companion.stream(on_line, vim.schedule_wrap(on_stream_end))
    if job then
      state.job = job
      state.starting = false
    else
      vim.defer_fn(follow, RETRY_MS)
    end
  end)
end

--- Starts `companion4j serve` for the working directory, in the background.
function M.start()
  if companion.find() then
    return notify('a companion already serves ' .. vim.fn.getcwd())
  end
  -- Not detached: the companion stops when Neovim quits, as an editor's own companion does.
  local ok, job = pcall(vim.fn.jobstart, { config.values.command, 'serve', '--workspace', vim.fn.getcwd() })
  if not ok or job <= 0 then
    return notify('cannot run ' .. config.values.command .. '; put it on PATH or set the command option (:checkhealth companion4j)', vim.log.levels.ERROR)
  end
  state.starting = true
  redraw_status()
  notify('starting the companion for ' .. vim.fn.getcwd())
end

--- Sets the options (see :help companion4j-options) and starts following the companion.
function M.setup(opts)
  config.set(opts)
  if state.started then
    return
  end
  state.started = true
  local group = vim.api.nvim_create_augroup('companion4j', { clear = true })
  context.attach(group)
  if config.values.autostart and not companion.find() then
    M.start()
  end
  follow()
end

--- For the statusline: "C4J off", "C4J 2 CLIs", "C4J 1 CLI · 1 to review".
function M.statusline()
  if not state.connected then
    return state.starting and 'C4J starting' or (companion.gone() and 'C4J gone' or 'C4J off')
  end
  local clis = count(state.clients)
  local text = 'C4J ' .. clis .. (clis == 1 and ' CLI' or ' CLIs')
  local pending = #review.list()
  if pending > 0 then
    text = text .. ' · ' .. pending .. ' to review'
  end
  return text
end

--- The proposals on show, oldest first: { { id, path, buf }, … }.
function M.proposals()
  return review.list()
end

function M.accept()
  review.answer_current(true)
end

function M.reject()
  review.answer_current(false)
end

--- Opens every pending proposal that is not on show yet.
function M.review()
  local status, body = companion.request_sync('GET', '/diffs')
  if status ~= 200 then
    return notify(companion.reason(status, body), vim.log.levels.WARN)
  end
  local pending = vim.json.decode(body)
  if #pending == 0 then
    return notify('no proposed edit is pending')
  end
  review.sync(pending, true)
end

--- What the status command prints; never the token.
function M.status()
  local c = companion.find()
  if not c then
    return (companion.gone() or ('no companion serves ' .. vim.fn.getcwd()))
      .. '; start one with :Companion4jStart or `companion4j serve`'
  end
  local lines = {
    'companion: ' .. c.api .. (state.connected and '' or ' (not followed yet)'),
    'workspace: ' .. tostring(c.workspace),
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
  return table.concat(lines, '\n')
end

-- The terminals :Companion4jRun started and still running: job id -> pid.
local terminals = {}

-- Quitting Neovim hangs up only a terminal's session leader, and a CLI may outlive that: Gemini
-- CLI's launcher ignores SIGHUP and the CLI it relaunched never hears it. So the whole process
-- group is hung up, as a shell hangs up its jobs when its terminal closes.
local function hang_up_terminals()
  for job, pid in pairs(terminals) do
    if vim.fn.jobwait({ job }, 0)[1] == -1 then
      (vim.uv or vim.loop).kill(-pid, 'sighup')
    end
  end
end

--- Starts a CLI in a terminal window with the variables that connect it to the companion.
function M.run(args)
  if #args == 0 then
    return notify('name the CLI to run, e.g. :Companion4jRun qwen', vim.log.levels.WARN)
  end
  if vim.fn.executable(args[1]) == 0 then
    return notify('cannot run ' .. args[1] .. ': not found on PATH', vim.log.levels.ERROR)
  end
  local status, body = companion.request_sync('GET', '/terminal')
  if status ~= 200 then
    return notify(companion.reason(status, body) .. '; start one with :Companion4jStart', vim.log.levels.WARN)
  end
  local env, dropped = companion.terminal_variables(body)
  if not env then
    return notify('the companion\'s terminal variables are not a JSON object; nothing was started', vim.log.levels.ERROR)
  end
  if #dropped > 0 then
    notify('ignored terminal variables that are not the IDE\'s: ' .. table.concat(dropped, ', '), vim.log.levels.WARN)
  end
  vim.cmd(config.values.terminal_split)
  vim.cmd('enew')
  -- The variables (the token among them) go into the environment, never the arguments.
  local job = vim.fn.termopen(args, {
    env = env,
    on_exit = function(id)
      terminals[id] = nil
    end,
  })
  if job > 0 then
    terminals[job] = vim.fn.jobpid(job)
    vim.api.nvim_create_autocmd('VimLeavePre', {
      group = vim.api.nvim_create_augroup('companion4j_terminals', { clear = true }),
      callback = hang_up_terminals,
    })
  end
  vim.cmd('startinsert')
end

return M
