-- Registers tirc's language server for .tir files in Neovim's built-in LSP
-- client. Works on Neovim 0.7 (Debian's package) and later: 0.8+ uses
-- vim.lsp.start, 0.7 starts one client and attaches each .tir buffer to it.
-- Put this file on your runtimepath (for example in ~/.config/nvim/plugin/)
-- or paste it into init.lua. `tirc` must be on PATH (`cargo install --path cli`).
vim.filetype.add({ extension = { tir = "tir" } })

local config = {
  name = "tirc",
  cmd = { "tirc", "lsp" },
  init_options = { formatDialect = "classic", debounceMs = 10 },
}

-- The project root: the nearest directory above the file with Cargo.toml or .git.
local function root_of(buf)
  local name = vim.api.nvim_buf_get_name(buf)
  local dir = vim.fn.fnamemodify(name, ":p:h")
  local marker = vim.fn.findfile("Cargo.toml", dir .. ";")
  if marker == "" then
    marker = vim.fn.finddir(".git", dir .. ";")
  end
  if marker ~= "" then
    return vim.fn.fnamemodify(marker, ":p:h:h")
  end
  return dir
end

local client_id_07 = nil

vim.api.nvim_create_autocmd("FileType", {
  pattern = "tir",
  callback = function(args)
    vim.bo[args.buf].commentstring = "# %s"
    config.root_dir = root_of(args.buf)
    if vim.lsp.start then
      vim.lsp.start(config)
    else
      -- Neovim 0.7: no vim.lsp.start; one client serves every .tir buffer.
      if client_id_07 == nil or vim.lsp.get_client_by_id(client_id_07) == nil then
        client_id_07 = vim.lsp.start_client(config)
      end
      if client_id_07 then
        vim.lsp.buf_attach_client(args.buf, client_id_07)
      end
    end
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
