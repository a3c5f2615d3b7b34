-- SPDX-License-Identifier: GPL-2.0
-- A CPU-heavy Lua workload for uwprof's demo and end-to-end test: the
-- interpreter loop, calls, tables, strings and sorting, for SECONDS
-- (default 5) of CPU time.
local seconds = tonumber(arg and arg[1]) or 5

local function fib(n)
  if n < 2 then return n end
  return fib(n - 1) + fib(n - 2)
end

local function build_table(n)
  local t = {}
  for i = 1, n do t[i] = (i * 7919) % 1000 end
  return t
end

local function strings(n)
  local parts = {}
  for i = 1, n do parts[#parts + 1] = string.format("%d:%x", i, i * 31) end
  local s = table.concat(parts, ",")
  return #s:gsub("%d+", "n")
end

local total, rounds = 0, 0
local deadline = os.clock() + seconds
while os.clock() < deadline do
  total = total + fib(18)
  local t = build_table(2000)
  table.sort(t)
  total = total + t[1] + strings(300)
  rounds = rounds + 1
end
print(string.format("workload: %d rounds, checksum %d", rounds, total))
