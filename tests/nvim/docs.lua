-- Headless Neovim (0.7 and later) running docs/NEOVIM.md's own recipe (sourced before this file):
-- switch buffers, :KataShow, the statement lens, :KataHint, :KataStart; record what a user sees.
-- Input from the environment: KATA_FILE (a wrong solution); output: a JSON object in KATA_OUT.

local out = os.getenv("KATA_OUT")
local timeout_ms = 60000
local open_ms = 15000 -- opening a file after a command is quick: a miss fails the test, not its timeout
local errors, messages, offers = {}, {}, {}

local function finish(result)
  result.errors, result.messages, result.offers = errors, messages, offers
  vim.fn.writefile({ vim.fn.json_encode(result) }, out)
  vim.cmd("qall!")
end

-- What would reach the user's eyes: error notifications (the codeLens one among them) and messages.
vim.notify = function(message, level)
  if level == nil or level >= vim.log.levels.WARN then table.insert(errors, message) end
end
vim.lsp.handlers["window/showMessage"] = function(_, result)
  table.insert(messages, result.message)
  return result
end
vim.lsp.handlers["window/showMessageRequest"] = function(_, result)
  table.insert(offers, result.message)
  return vim.NIL
end

local function window_showing(pattern)
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    local name = vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(win))
    if name:match(pattern) then return win end
  end
end

local function main()
  vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("KATA_FILE")))
  local bufnr = vim.api.nvim_get_current_buf()
  assert(vim.wait(timeout_ms, function() return #vim.diagnostic.get(bufnr) > 0 end, 10), "no diagnostics")
  vim.cmd("enew")
  vim.cmd("buffer " .. bufnr) -- BufEnter again, with the server running
  vim.cmd("doautocmd BufEnter")

  vim.cmd("KataShow")
  local shown = vim.wait(open_ms, function() return window_showing("README%.md$") ~= nil end, 10)
  if shown then vim.api.nvim_win_close(window_showing("README%.md$"), true) end

  local function statement_lens()
    for _, lens in ipairs(vim.lsp.codelens.get(bufnr) or {}) do
      if lens.command and lens.command.command == "kata.showProblem" then return lens end
    end
  end
  assert(vim.wait(timeout_ms, function() return statement_lens() ~= nil end, 10), "no statement lens")
  vim.ui.select = function(items, _, on_choice)
    for index, item in ipairs(items) do
      local lens = item.lens or item
      if lens.command and lens.command.command == "kata.showProblem" then return on_choice(item, index) end
    end
  end
  vim.api.nvim_set_current_win(vim.fn.bufwinid(bufnr))
  vim.api.nvim_win_set_cursor(0, { statement_lens().range.start.line + 1, 0 })
  vim.lsp.codelens.run()
  local lens_opened = vim.wait(open_ms, function() return window_showing("README%.md$") ~= nil end, 10)
  if lens_opened then vim.api.nvim_win_close(window_showing("README%.md$"), true) end

  vim.api.nvim_set_current_win(vim.fn.bufwinid(bufnr))
  vim.cmd("KataHint")
  vim.wait(open_ms, function()
    for _, m in ipairs(messages) do if m:match("hint 1/2") then return true end end
  end, 10)

  vim.cmd("KataStart fixture-codestar-double")
  local started = vim.wait(open_ms, function()
    return vim.api.nvim_buf_get_name(0):match("fixture_codestar_double%.py$") ~= nil
  end, 10)
  finish({ shown = shown, lens_opened = lens_opened, started = started,
           started_text = started and vim.api.nvim_buf_get_lines(0, 0, 1, false)[1] or "" })
end

local ok, err = pcall(main)
if not ok then finish({ error = tostring(err) }) end
