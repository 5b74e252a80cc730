-- Headless Neovim (0.7 and later) as a real client of `kata serve`: open a solution, save a wrong
-- version, and record what the editor shows (diagnostics, code lenses); then run the run lens.
-- Input from the environment: KATA_PYTHON, KATA_FILE, KATA_WRONG (the text to save), KATA_LENS (the
-- run lens' title expected after that save), KATA_PROBLEMS (a problem folder); output: a JSON
-- object in KATA_OUT.

local out = os.getenv("KATA_OUT")
local timeout_ms = 60000

local function finish(result)
  vim.fn.writefile({ vim.fn.json_encode(result) }, out)
  vim.cmd("qall!")
end

local function main()
  local file = os.getenv("KATA_FILE")
  local results = 0
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()

  local prompts, messages = {}, {}
  local client_id = vim.lsp.start_client({
    name = "infrakata",
    cmd = { os.getenv("KATA_PYTHON"), "-m", "infrakata.server" },
    root_dir = vim.fn.fnamemodify(file, ":h"),
    init_options = { infrakata = { problemPaths = { os.getenv("KATA_PROBLEMS") }, watchFiles = false } },
    handlers = {
      -- A prompt would take over the editor until answered (0.7's inputlist): recorded, were there one.
      ["window/showMessageRequest"] = function(_, params)
        table.insert(prompts, params.message)
        return vim.NIL
      end,
      ["window/showMessage"] = function(_, params)
        table.insert(messages, params.message)
      end,
      -- Neovim 0.7 has no workspace/codeLens/refresh: refresh the lenses after each result.
      ["kata/result"] = function()
        results = results + 1
        vim.lsp.codelens.refresh()
      end,
    },
  })
  vim.lsp.buf_attach_client(bufnr, client_id)
  -- No didSave before the client is initialized.
  assert(vim.wait(timeout_ms, function()
    local client = vim.lsp.get_client_by_id(client_id)
    return client ~= nil and client.initialized
  end, 10), "the server did not initialize")
  assert(vim.wait(timeout_ms, function() return results >= 1 end, 10), "no result for the opened file")

  vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, vim.split(os.getenv("KATA_WRONG"), "\n", { trimempty = true }))
  vim.cmd("write")
  assert(vim.wait(timeout_ms, function() return #vim.diagnostic.get(bufnr) > 0 end, 10), "no diagnostics")

  local function run_lens()
    for _, lens in ipairs(vim.lsp.codelens.get(bufnr) or {}) do
      if lens.command and lens.command.command == "kata.run" then return lens end
    end
  end
  assert(vim.wait(timeout_ms, function()
    local lens = run_lens()
    return lens ~= nil and lens.command.title == os.getenv("KATA_LENS")
  end, 10), "no run lens titled " .. os.getenv("KATA_LENS"))

  local diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    local lsp = d.user_data and d.user_data.lsp or {}
    table.insert(diagnostics, { lnum = d.lnum, col = d.col, source = d.source, code = lsp.code, message = d.message })
  end
  local lenses = {}
  for _, lens in ipairs(vim.lsp.codelens.get(bufnr)) do
    table.insert(lenses, { line = lens.range.start.line, title = lens.command.title, command = lens.command.command })
  end

  -- Run the lens under the cursor as a user would; several lenses on a line ask which one.
  vim.ui.select = function(items, _, on_choice)
    for index, item in ipairs(items) do
      local lens = item.lens or item -- 0.7 offers {client, lens}
      if lens.command and lens.command.command == "kata.run" then return on_choice(item, index) end
    end
  end
  local before = results
  vim.api.nvim_win_set_cursor(0, { run_lens().range.start.line + 1, 0 })
  vim.lsp.codelens.run()
  local ran = vim.wait(timeout_ms, function() return results > before end, 10)

  finish({ diagnostics = diagnostics, lenses = lenses, lens_ran = ran, prompts = prompts, messages = messages })
end

local ok, err = pcall(main)
if not ok then finish({ error = tostring(err) }) end
