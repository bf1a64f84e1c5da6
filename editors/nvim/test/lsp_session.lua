-- A scripted editor session for cli/tests/neovim.rs: with editors/nvim/tirc.lua
-- loaded, open a file with an error and wait for its diagnostic, open an
-- unformatted file and format it, then write what happened as JSON to
-- $TIRC_NVIM_REPORT and quit. Runs on Neovim 0.7 and later.
local report = { diagnostics = {}, formatted = nil, errors = {} }

local function wait(ms, condition)
  return vim.wait(ms, condition, 20)
end

local ok, err = pcall(function()
  vim.cmd("edit " .. vim.fn.fnameescape(vim.env.TIRC_NVIM_BROKEN))
  local broken = vim.api.nvim_get_current_buf()
  if not wait(20000, function() return #vim.diagnostic.get(broken) > 0 end) then
    table.insert(report.errors, "no diagnostics arrived for the broken file")
  end
  for _, d in ipairs(vim.diagnostic.get(broken)) do
    table.insert(report.diagnostics, { line = d.lnum + 1, message = d.message })
  end

  vim.cmd("edit " .. vim.fn.fnameescape(vim.env.TIRC_NVIM_UNFORMATTED))
  local buf = vim.api.nvim_get_current_buf()
  local attached = function()
    if vim.lsp.get_clients then
      return #vim.lsp.get_clients({ bufnr = buf }) > 0
    end
    return #vim.lsp.buf_get_clients(buf) > 0
  end
  if not wait(20000, attached) then
    table.insert(report.errors, "the server did not attach to the second buffer")
  end
  if vim.lsp.buf.format then
    vim.lsp.buf.format({ bufnr = buf, async = false, timeout_ms = 20000 })
  else
    vim.lsp.buf.formatting_sync(nil, 20000)
  end
  report.formatted = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n") .. "\n"
end)
if not ok then
  table.insert(report.errors, tostring(err))
end

local file = io.open(vim.env.TIRC_NVIM_REPORT, "w")
file:write(vim.fn.json_encode(report))
file:close()
vim.cmd("qa!")
