-- mixed.lua: wrk requests for the load test: 6 in 10 sample a track, 3 list the catalogue,
-- 1 uploads a new clip. SAMPLE_PATH comes from the environment.
local sample = os.getenv("SAMPLE_PATH") or "/api/health"
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
end

function request()
  counter = counter + 1
  local r = counter % 10
  if r < 6 then
    return wrk.format("GET", sample)
  elseif r < 9 then
    return wrk.format("GET", "/api/resources?limit=20")
  end
  local body = string.format('{"name": "load %d %d", "duration": %d}', id, counter, counter % 5)
  return wrk.format("POST", "/api/resources?filename=load.json",
    { ["Content-Type"] = "application/json" }, body)
end

function response(status, headers, body)
  if status >= 400 then
    bad = bad + 1
  end
end

function done(summary, latency, requests)
  local total_bad = 0
  for _, thread in ipairs(threads) do
    total_bad = total_bad + thread:get("bad")
  end
  io.write(string.format("load: %d requests, %d errors (status >= 400), %d socket errors, p99 %.2f ms\n",
    summary.requests, total_bad,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    latency:percentile(99) / 1000))
end
