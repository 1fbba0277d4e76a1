-- :checkhealth companion4j
local M = {}

-- vim.health from Neovim 0.9 on; require('health') before.
local h = vim.health or {}
local start = h.start or h.report_start or require('health').report_start
local ok = h.ok or h.report_ok or require('health').report_ok
local warn = h.warn or h.report_warn or require('health').report_warn
local err = h.error or h.report_error or require('health').report_error

function M.check()
  start('companion4j')
  if vim.fn.has('nvim-0.7') == 1 then
    ok('Neovim ' .. tostring(vim.version().major) .. '.' .. tostring(vim.version().minor))
  else
    err('Neovim 0.7 or newer is needed')
  end
  local config = require('companion4j.config').values
  if vim.g.loaded_companion4j == nil then
    warn('plugin/companion4j.lua was not loaded: is editors/neovim on the runtimepath?')
  end
  if vim.fn.executable(config.command) == 0 then
    return err('`' .. config.command .. '` is not on PATH, so the plugin cannot reach or start a companion', {
      'Put it on PATH: a release\'s install.sh links it into ~/.local/bin; from a clone, '
        .. '`ln -s /path/to/clone/companion4j ~/.local/bin/companion4j`',
      "Or name it in setup{}: command = '/path/to/companion4j'",
    })
  end
  ok('`' .. config.command .. '` found: the plugin reaches the companion through `' .. config.command .. ' attach`')
  local companion4j = require('companion4j')
  local c, why = companion4j.companion()
  if c then
    ok('a companion serves ' .. vim.fn.getcwd() .. ' on port ' .. tostring(c.port) .. ', and proved that it holds its token')
    ok('following the companion: ' .. companion4j.statusline())
  elseif config.autostart then
    warn(why .. '; autostart runs one in `' .. config.command .. ' attach --start`')
  else
    warn(why, {
      'Run `companion4j serve` in the project, or :Companion4jStart',
      'or set autostart = true in setup{}',
    })
  end
end

return M
