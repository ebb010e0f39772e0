-- scale.lua: wrk requests drawn from a file of paths (args[1]), one a line, each thread from
-- its own fixed seed; prints the 99th percentile latency and any answer that was not a 200.
local threads = {}
local next_id = 1

function setup(thread)
  thread:set("id", next_id)
  next_id = next_id + 1
  table.insert(threads, thread)
end

function init(args)
  paths = {}
  for line in io.lines(args[1]) do paths[#paths + 1] = line end
  math.randomseed(1000 + id)
  bad = 0
end

function request()
  return wrk.format("GET", paths[math.random(#paths)])
end

function response(status, headers, body)
  if status ~= 200 then bad = bad + 1 end
end

function done(summary, latency, requests)
  local failed = 0
  for _, thread in ipairs(threads) do failed = failed + thread:get("bad") end
  io.write(string.format("scale: p99 %.2f ms, p50 %.2f ms, %d requests, %d not 200\n",
    latency:percentile(99) / 1000, latency:percentile(50) / 1000, summary.requests, failed))
end
