-- What the editor tells the companion: the file in focus, closed files, the
-- cursor, the selection, unsaved changes and vim.diagnostic's diagnostics,
-- in the order they happened.
local config = require('companion4j.config')

local M = {}

-- Where events go: set by M.attach.
local send = function() end

function M.post(event)
  send(event)
end

--- The absolute path of a buffer that shows a file on disk, else nil.
function M.file_of(buf)
  local name = vim.api.nvim_buf_get_name(buf)
  if name == '' or vim.bo[buf].buftype ~= '' or vim.fn.filereadable(name) == 0 then
    return nil
  end
  return vim.fn.fnamemodify(name, ':p')
end

-- The editor API counts characters from 1; Neovim counts bytes from 0.
local function character(line_text, byte_col)
  return vim.fn.strchars(line_text:sub(1, byte_col)) + 1
end

local function line_of(buf, lnum)
  return vim.api.nvim_buf_get_lines(buf, lnum - 1, lnum, false)[1] or ''
end

--- The visual selection as { text, range }, or nil outside visual mode.
local function selection()
  local mode = vim.fn.mode()
  if mode ~= 'v' and mode ~= 'V' and mode ~= '\22' then
    return nil
  end
  local a, b = vim.fn.getpos('v'), vim.fn.getpos('.')
  if a[2] > b[2] or (a[2] == b[2] and a[3] > b[3]) then
    a, b = b, a
  end
  local lines = vim.api.nvim_buf_get_lines(0, a[2] - 1, b[2], false)
  local start_char, end_char = 1, vim.fn.strchars(lines[#lines]) + 1
  if mode == 'v' then
    -- b[3] is the byte where the last character starts; take the whole character.
    local last = lines[#lines]
    local stop = b[3] + math.max(#vim.fn.strcharpart(last:sub(b[3]), 0, 1), 1) - 1
    lines[#lines] = last:sub(1, stop)
    start_char = character(lines[1], a[3] - 1)
    end_char = vim.fn.strchars(lines[#lines]) + 1
    lines[1] = lines[1]:sub(a[3])
  end
  return {
    text = table.concat(lines, '\n'):sub(1, 16384),
    range = { startLine = a[2], startCharacter = start_char, endLine = b[2], endCharacter = end_char },
  }
end

local last_selection = ''

-- The companion refuses an unsaved text longer than this (in characters; a byte is at most one).
local MAX_UNSAVED_BYTES = 1024 * 1024

--- The text buf would have on disk if it were saved now, or nil past the companion's bound.
local function unsaved_text(buf)
  local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
  if vim.bo[buf].eol or (vim.bo[buf].fixeol and not vim.bo[buf].binary) then
    text = text .. '\n'
  end
  if #text > MAX_UNSAVED_BYTES then
    return nil
  end
  return text
end

--- Sends whether buf has unsaved changes and, while it has, their whole text: the companion's chat
--- agent reads it instead of the disk. Past the bound only the state goes, and the agent reads the
--- disk.
function M.report_dirty(buf)
  local path = vim.api.nvim_buf_is_valid(buf) and M.file_of(buf)
  if not path then
    return
  end
  local dirty = vim.bo[buf].modified
  M.post({ type = 'dirty', path = path, dirty = dirty, text = dirty and unsaved_text(buf) or nil })
end

local function report_cursor()
  local path = M.file_of(0)
  if not path then
    return
  end
  local pos = vim.api.nvim_win_get_cursor(0)
  M.post({ type = 'cursor', path = path, line = pos[1], character = character(vim.api.nvim_get_current_line(), pos[2]) })
  local sel = selection()
  local text = sel and sel.text or ''
  if text ~= last_selection then
    last_selection = text
    M.post({ type = 'selection', path = path, text = text, range = sel and sel.range or nil })
  end
end

local severities = { 'error', 'warning', 'information', 'hint' }

--- Sends buf's whole diagnostics list, an empty one too: it tells the companion that this editor
--- reports diagnostics, so a file without problems is "no errors" rather than "not reported".
function M.report_diagnostics(buf)
  local path = M.file_of(buf)
  if not config.values.diagnostics or not path then
    return
  end
  local list = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    local end_lnum, end_col = d.end_lnum or d.lnum, d.end_col or d.col
    table.insert(list, {
      range = {
        startLine = d.lnum + 1,
        startCharacter = character(line_of(buf, d.lnum + 1), d.col),
        endLine = end_lnum + 1,
        endCharacter = character(line_of(buf, end_lnum + 1), end_col),
      },
      severity = severities[d.severity] or 'error',
      message = d.message,
      source = d.source,
    })
  end
  M.post({ type = 'diagnostics', path = path, diagnostics = list })
end

--- Reports what happens in the editor to send(event), from now on.
function M.attach(group, sender)
  send = sender
  local timer = (vim.uv or vim.loop).new_timer()
  local text_timer = (vim.uv or vim.loop).new_timer()
  -- The buffer whose text waits for the debounce; another buffer's change sends it at once.
  local typed_in = nil
  vim.api.nvim_create_autocmd({ 'BufEnter', 'FocusGained' }, {
    group = group,
    callback = function(args)
      local path = M.file_of(args.buf)
      if path then
        M.post({ type = 'focus', path = path })
        M.report_diagnostics(args.buf)
      end
    end,
  })
  vim.api.nvim_create_autocmd({ 'BufDelete', 'BufWipeout' }, {
    group = group,
    callback = function(args)
      local path = M.file_of(args.buf)
      if path then
        M.post({ type = 'close', path = path })
      end
    end,
  })
  vim.api.nvim_create_autocmd({ 'CursorMoved', 'CursorMovedI', 'ModeChanged' }, {
    group = group,
    callback = function()
      -- Cursor moves come in bursts; report where the cursor comes to rest.
      timer:stop()
      timer:start(config.values.debounce_ms, 0, vim.schedule_wrap(report_cursor))
    end,
  })
  vim.api.nvim_create_autocmd('BufModifiedSet', {
    group = group,
    callback = function(args)
      M.report_dirty(args.buf)
    end,
  })
  vim.api.nvim_create_autocmd({ 'TextChanged', 'TextChangedI' }, {
    group = group,
    callback = function(args)
      if typed_in and typed_in ~= args.buf then
        M.report_dirty(typed_in)
      end
      typed_in = args.buf
      -- Typing changes the text at every key; send it once the typing rests.
      text_timer:stop()
      text_timer:start(config.values.debounce_ms, 0, vim.schedule_wrap(function()
        local buf = typed_in
        typed_in = nil
        if buf and vim.api.nvim_buf_is_valid(buf) and vim.bo[buf].modified then
          M.report_dirty(buf)
        end
      end))
    end,
  })
  vim.api.nvim_create_autocmd('DiagnosticChanged', {
    group = group,
    callback = function(args)
      M.report_diagnostics(args.buf)
    end,
  })
end

--- Sends the current file, the cursor, the file's diagnostics and every unsaved file: a companion
--- that just attached knows nothing of this editor yet.
function M.report_current()
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].modified then
      M.report_dirty(buf)
    end
  end
  local path = M.file_of(0)
  if path then
    M.post({ type = 'focus', path = path })
    last_selection = ''
    report_cursor()
    M.report_diagnostics(0)
  end
end

return M
