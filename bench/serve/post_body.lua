-- wrk script: POSTs one prepared request body to one path.
--   wrk ... -s post_body.lua URL -- BODY_FILE PATH [HEADER_LENGTH]
-- HEADER_LENGTH, when given, is sent as Inference-Header-Content-Length
-- (Triton's binary tensor extension). Non-200 answers are counted and
-- printed at the end, so a run with errors cannot pass as a fast one.
local non_ok = 0

function init(args)
  local f = assert(io.open(args[1], "rb"))
  wrk.body = f:read("*a")
  f:close()
  wrk.method = "POST"
  wrk.path = args[2]
  if args[3] then
    wrk.headers["Inference-Header-Content-Length"] = args[3]
    wrk.headers["Content-Type"] = "application/octet-stream"
  else
    wrk.headers["Content-Type"] = "application/json"
  end
end

function response(status, headers, body)
  if status ~= 200 then
    non_ok = non_ok + 1
  end
end

function done(summary, latency, requests)
  io.write(string.format("non_200 %d\n", non_ok))
  for _, p in ipairs({50, 90, 99}) do
    io.write(string.format("latency_p%d_us %d\n", p, latency:percentile(p)))
  end
  io.write(string.format("requests %d\nduration_us %d\n", summary.requests, summary.duration))
end
