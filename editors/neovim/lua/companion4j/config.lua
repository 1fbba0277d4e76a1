-- The options of require('companion4j').setup{…}; see :help companion4j-options.
local M = {}

M.defaults = {
  -- Start a companion for the working directory when none serves it (`companion4j attach --start`).
  autostart = false,
  -- The companion4j launcher: the plugin runs `<command> attach`.
  command = 'companion4j',
  -- Open each proposed edit in a diff tab as it arrives; else use :Companion4jReview.
  open_diffs = true,
  -- Send vim.diagnostic's diagnostics for the files you edit.
  diagnostics = true,
  -- How long the cursor rests before its place is sent, and typing before a buffer's unsaved text
  -- is sent, in milliseconds.
  debounce_ms = 100,
  -- The Ex command that opens the window :Companion4jRun starts a CLI in.
  terminal_split = 'botright 15split',
}

M.values = vim.deepcopy(M.defaults)

function M.set(opts)
  M.values = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), opts or {})
end

return M
