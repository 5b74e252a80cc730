-- Headless Neovim (0.7 and later) running docs/NEOVIM.md's recipes (sourced before this file): open a
-- wrong solution, record the inline values drawn as virtual text, then edit and see them cleared.
-- Input from the environment: KATA_FILE; output: a JSON object in KATA_OUT.

local out = os.getenv("KATA_OUT")
local timeout_ms = 60000

local function finish(result)
  vim.fn.writefile({ vim.fn.json_encode(result) }, out)
  vim.cmd("qall!")
end

local function marks(bufnr)
  local namespace = vim.api.nvim_get_namespaces()["kata_values"]
  local found = {}
  for _, mark in ipairs(vim.api.nvim_buf_get_extmarks(bufnr, namespace, 0, -1, { details = true })) do
    table.insert(found, { line = mark[2], text = mark[4].virt_text[1][1] })
  end
  return found
end

local function main()
  vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("KATA_FILE")))
  local bufnr = vim.api.nvim_get_current_buf()
  assert(vim.wait(timeout_ms, function() return #marks(bufnr) > 0 end, 10), "no inline values")
  local shown = marks(bufnr)
  vim.api.nvim_buf_set_lines(bufnr, -1, -1, false, { "# an edit" })
  local cleared = vim.wait(15000, function() return #marks(bufnr) == 0 end, 10)
  finish({ shown = shown, cleared = cleared })
end

local ok, err = pcall(main)
if not ok then finish({ error = tostring(err) }) end
