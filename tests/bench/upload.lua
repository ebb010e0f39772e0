-- upload.lua: wrk uploads of unique small clips, for the concurrent upload benchmark.
local counter = 0
local threads = {}
local next_id = 1

function setup(thread)
  thread:set("id", next_id)
  next_id = next_id + 1
  table.insert(threads, thread)
end

function init(args)
  bad = 0
  prefix = args[1] or ""  -- one per wrk process, so that two processes upload different bytes
end

function request()
  counter = counter + 1
  local body = string.format('{"name": "bench %s%d %d", "duration": 1}', prefix, id, counter)
  return wrk.format("POST", "/api/resources?filename=b.json",
    { ["Content-Type"] = "application/json" }, body)
end

function response(status, headers, body)
  if status >= 300 then bad = bad + 1 end
end

function done(summary, latency, requests)
  local total = 0
  for _, thread in ipairs(threads) do total = total + thread:get("bad") end
  io.write(string.format("uploads: %d requests, %d not stored\n", summary.requests, total))
end
