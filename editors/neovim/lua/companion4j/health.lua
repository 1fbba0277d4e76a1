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
  if vim.fn.executable('curl') == 1 then
    ok('curl found')
  else
    err('curl not found on PATH; the plugin talks to the companion with it', { 'Install curl' })
  end
  local config = require('companion4j.config').values
  if vim.g.loaded_companion4j == nil then
    warn('plugin/companion4j.lua was not loaded: is editors/neovim on the runtimepath?')
  end
  local companion = require('companion4j.companion')
  local c = companion.find()
  if c then
    ok('a companion serves ' .. vim.fn.getcwd() .. ': ' .. c.api .. ', and proved that it holds its token')
  elseif companion.gone() then
    err(companion.gone() .. '; the plugin sends it nothing', {
      'Start the companion again: `companion4j serve` in the project, or :Companion4jStart',
    })
  elseif config.autostart then
    warn('no companion serves ' .. vim.fn.getcwd() .. ' yet; autostart runs ' .. config.command)
  else
    warn('no companion serves ' .. vim.fn.getcwd(), {
      'Run `companion4j serve` in the project, or :Companion4jStart',
      'or set autostart = true in setup{}',
    })
  end
  if vim.fn.executable(config.command) == 0 then
    warn('`' .. config.command .. '` is not on PATH, so :Companion4jStart and autostart cannot start a companion', {
      'Put it on PATH: a release\'s install.sh links it into ~/.local/bin; from a clone, '
        .. '`ln -s /path/to/clone/companion4j ~/.local/bin/companion4j`',
      "Or name it in setup{}: command = '/path/to/companion4j'",
    })
  end
  local status = require('companion4j').statusline()
  if status == 'C4J off' or status == 'C4J starting' then
    warn('not following a companion (' .. status .. ')')
  else
    ok('following the companion: ' .. status)
  end
end

return M
