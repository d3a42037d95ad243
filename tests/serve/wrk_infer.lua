-- wrk script for tests/serve/soak_wrk.sh: every request POSTs one real
-- digits sample as Open Inference Protocol JSON to /v2/models/digits/infer.
-- The body comes from the file named by $KILN_WRK_BODY (soak_wrk.sh writes
-- it from examples/digits/samples/digit_00_label_5.pb). done() prints the
-- number of responses that were not 200, and of 200s whose body is not a
-- digits inference answer, summed over wrk's threads:
--   lua: responses N, non-200 N, bad 200 bodies N
-- and, per thread that saw one, the first non-200 status and body.

local path = os.getenv("KILN_WRK_BODY")
local f = path and io.open(path, "rb")
if not f then
  error("wrk_infer.lua: set KILN_WRK_BODY to a JSON request body file")
end
local body = f:read("*a")
f:close()

wrk.method = "POST"
wrk.path = "/v2/models/digits/infer"
wrk.body = body
wrk.headers["Content-Type"] = "application/json"

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  responses = 0
  non200 = 0
  bad_bodies = 0
  first_bad = ""
end

function response(status, headers, resp_body)
  responses = responses + 1
  if status ~= 200 then
    non200 = non200 + 1
    if first_bad == "" then
      first_bad = status .. " " .. string.sub(resp_body or "", 1, 300)
    end
  elseif not (resp_body:find('"model_name":"digits"', 1, true) and
              resp_body:find('"name":"logits"', 1, true)) then
    bad_bodies = bad_bodies + 1
  end
end

function done(summary, latency, requests)
  local n, bad, odd = 0, 0, 0
  for _, t in ipairs(threads) do
    n = n + t:get("responses")
    bad = bad + t:get("non200")
    odd = odd + t:get("bad_bodies")
  end
  io.write(string.format("lua: responses %d, non-200 %d, bad 200 bodies %d\n", n, bad, odd))
  for i, t in ipairs(threads) do
    local first = t:get("first_bad")
    if first and first ~= "" then
      io.write(string.format("lua: thread %d, first non-200: %s\n", i, first))
    end
  end
end
