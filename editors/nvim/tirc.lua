-- Registers tirc's language server for .tir files in Neovim (0.8+), using the
-- built-in LSP client. Put this file on your runtimepath (for example in
-- ~/.config/nvim/plugin/) or paste it into init.lua. `tirc` must be on PATH
-- with `tirc-lsp` beside it (`cargo build --release` builds both).
vim.filetype.add({ extension = { tir = "tir" } })

vim.api.nvim_create_autocmd("FileType", {
  pattern = "tir",
  callback = function(args)
    vim.bo[args.buf].commentstring = "# %s"
    vim.lsp.start({
      name = "tirc",
      cmd = { "tirc", "lsp" },
      root_dir = vim.fs.dirname(vim.fs.find({ "Cargo.toml", ".git" }, { upward = true })[1] or vim.api.nvim_buf_get_name(args.buf)),
      init_options = { formatDialect = "classic", debounceMs = 10 },
    })
  end,
})

-- :TircPreview [step] shows the module after a schedule step in a split.
vim.api.nvim_create_user_command("TircPreview", function(opts)
  local step = tonumber(opts.args)
  local argument = { uri = vim.uri_from_bufnr(0), step = step }
  vim.lsp.buf_request(0, "workspace/executeCommand", { command = "tirc.schedulePreview", arguments = { argument } }, function(err, result)
    if err then
      vim.notify(err.message, vim.log.levels.ERROR)
      return
    end
    vim.cmd("vnew")
    vim.api.nvim_buf_set_lines(0, 0, -1, false, vim.split(result.text, "\n"))
    vim.bo.filetype = "tir"
    vim.bo.buftype = "nofile"
  end)
end, { nargs = "?" })

-- Neovim runs code lens commands through the client; route the preview lens
-- to the same split view.
vim.lsp.commands["tirc.schedulePreview"] = function(command)
  local argument = command.arguments and command.arguments[1] or {}
  vim.cmd("TircPreview " .. (argument.step or ""))
end
