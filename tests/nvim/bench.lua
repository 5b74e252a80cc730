-- Headless Neovim (0.7 and later) running docs/NEOVIM.md's own recipe (sourced before this file): open a kernel
-- kata's solution and run :KataBenchmark; record what Neovim notifies (0.7 shows no progress, and the lens only
-- once it is asked for again). Input: KATA_FILE; output: a JSON object in KATA_OUT.

local out = os.getenv("KATA_OUT")
local notified = {}

local function finish(result)
  result.notified = notified
  vim.fn.writefile({ vim.fn.json_encode(result) }, out)
  vim.cmd("qall!")
end

vim.notify = function(message) table.insert(notified, message) end

local function main()
  vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("KATA_FILE")))
  local bufnr = vim.api.nvim_get_current_buf()
  assert(vim.wait(120000, function()
    for _, client in pairs(vim.lsp.buf_get_clients(bufnr)) do
      if client.name == "infrakata" and client.initialized then return true end
    end
  end, 10), "the server did not initialize")
  vim.cmd("KataBenchmark")
  local said = vim.wait(180000, function()
    for _, message in ipairs(notified) do if message:match("^kata: fused%-swiglu: ") then return true end end
  end, 50)
  finish({ said = said })
end

local ok, err = pcall(main)
if not ok then finish({ error = tostring(err) }) end
