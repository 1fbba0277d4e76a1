-- :Companion4jRun: a CLI in a terminal window, with the variables that connect it to the
-- companion this editor is attached to.
local attach = require('companion4j.attach')
local config = require('companion4j.config')

local M = {}

local function notify(text, level)
  vim.notify('companion4j: ' .. text, level or vim.log.levels.INFO)
end

-- The variables a terminal may take from attach's `terminal` answer (Companion.terminalEnvironment)
-- and the form of each value; any other name (NODE_OPTIONS, say) would run what it names.
local PORT, TEXT = '^%d%d?%d?%d?%d?$', '^[^%z\1-\31\127]*$'
local TERMINAL = {
  QWEN_CODE_IDE_SERVER_PORT = PORT, GEMINI_CLI_IDE_SERVER_PORT = PORT,
  QWEN_CODE_IDE_WORKSPACE_PATH = TEXT, GEMINI_CLI_IDE_WORKSPACE_PATH = TEXT,
  GEMINI_CLI_IDE_AUTH_TOKEN = TEXT, REMOTE_CONTAINERS = TEXT,
}

--- The IDE's variables of a `terminal` answer, and the names of those dropped (not the IDE's, or
--- not of their form); nil when the answer is not an object.
function M.variables(all)
  if type(all) ~= 'table' or vim.tbl_islist(all) and next(all) ~= nil then
    return nil
  end
  local env, dropped = {}, {}
  for name, value in pairs(all) do
    local form = TERMINAL[name]
    if form and type(value) == 'string' and value:match(form) then
      env[name] = value
    else
      table.insert(dropped, (tostring(name):gsub('[%z\1-\31\127]', '?')))
    end
  end
  table.sort(dropped)
  return env, dropped
end

-- The terminals M.run started and still running: job id -> pid.
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
  local answer, err = attach.request_sync('terminal', nil)
  if not answer then
    return notify(tostring(err.message) .. '; start one with :Companion4jStart', vim.log.levels.WARN)
  end
  local env, dropped = M.variables(answer)
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
