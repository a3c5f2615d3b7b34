-- uwprof benchmark workload: a mix of Lua calls, strings, tables and
-- closures, so samples land in the VM, the GC, the string library and libc.
-- Usage: lua bench.lua [SCALE]
local scale = tonumber(arg and arg[1]) or 1

local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end

local function strings(n)
  local parts = {}
  for i = 1, n do
    parts[#parts + 1] = string.format("%d:%x:%s", i, i * 7, ("k" .. i):rep(3))
  end
  local s = table.concat(parts, ",")
  local count = 0
  for w in s:gmatch("(%d+):") do count = count + #w end
  s = s:gsub("k(%d)", "K%1")
  return count + #s
end

local function tables(n)
  local t = {}
  for i = 1, n do t[i] = (i * 7919) % n end
  table.sort(t)
  local m = {}
  for i = 1, n do m["key" .. (t[i] % 1000)] = (m["key" .. (t[i] % 1000)] or 0) + 1 end
  local sum = 0
  for _, v in pairs(m) do sum = sum + v end
  return sum
end

local function closures(n)
  local acc = 0
  local fs = {}
  for i = 1, 64 do fs[i] = function(x) return x * i + acc end end
  for i = 1, n do acc = (acc + fs[(i % 64) + 1](i)) % 1000003 end
  return acc
end

local total = 0
for _ = 1, scale do
  total = total + fib(20) + strings(8000) + tables(12000) + closures(80000)
end
print(total)
