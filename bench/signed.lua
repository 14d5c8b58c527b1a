-- wrk script: sends the requests bench_gen pre-signed, each at most once.
--
--   wrk -t1 -c16 -d10s -s bench/signed.lua URL -- DIR [stop|wrap]
--
-- Every request is assembled from DIR's fixed parts and one line of
-- DIR/list (timestamp, notificationId, eventDateTime, signature). With
-- "stop" (the default) a thread that has used its share of the list sends
-- an unsigned GET /ping and stops, so nothing is ever replayed (the
-- module would refuse a replay, which would distort the figures); "wrap"
-- cycles, for baselines that do not verify. A thread that runs out
-- creates DIR/done. done() prints "wrk_<key>
-- <value>" lines for bench/run.sh.

local nthreads = 0
local threads = {}

function setup(thread)
   thread:set("tid", nthreads)
   nthreads = nthreads + 1
   table.insert(threads, thread)
end

local function slurp(path)
   local f = assert(io.open(path, "rb"))
   local s = f:read("*a")
   f:close()
   return s
end

local head, b1, b2, b3, ping
local ts_, id_, dt_, sig_ = {}, {}, {}, {}
local n, i, wrap, dir = 0, 0, false, nil
exhausted = 0
sent = 0

function init(args)
   dir = args[1]
   wrap = (args[2] == "wrap")
   local share = tonumber(args[3] or "1")
   head, b1, b2, b3 = slurp(dir .. "/head"), slurp(dir .. "/b1"), slurp(dir .. "/b2"), slurp(dir .. "/b3")
   ping = slurp(dir .. "/ping")
   local k = 0
   for line in io.lines(dir .. "/list") do
      if k % share == tid then
         local ts, id, dt, sig = line:match("^(%S+) (%S+) (%S+) (%S+)$")
         n = n + 1
         ts_[n], id_[n], dt_[n], sig_[n] = ts, id, dt, sig
      end
      k = k + 1
   end
end

function request()
   i = i + 1
   if i > n then
      if wrap and n > 0 then
         i = 1
      else
         if exhausted == 0 then
            -- tells bench/run.sh that the list is used up
            local f = io.open(dir .. "/done", "w")
            if f then f:close() end
         end
         exhausted = 1
         wrk.thread:stop()
         return ping
      end
   end
   sent = sent + 1
   return head .. ts_[i] .. "\r\nX-Signature: " .. sig_[i] .. "\r\n\r\n" ..
          b1 .. id_[i] .. b2 .. dt_[i] .. b3
end

function done(summary, latency, requests)
   local ex, s = 0, 0
   for _, t in ipairs(threads) do
      ex = ex + (t:get("exhausted") or 0)
      s = s + (t:get("sent") or 0)
   end
   local e = summary.errors
   io.write(string.format("wrk_requests %d\n", summary.requests))
   io.write(string.format("wrk_signed_sent %d\n", s))
   io.write(string.format("wrk_seconds %.3f\n", summary.duration / 1e6))
   io.write(string.format("wrk_rps %.1f\n", summary.requests / (summary.duration / 1e6)))
   io.write(string.format("wrk_p50_ms %.3f\n", latency:percentile(50) / 1000))
   io.write(string.format("wrk_p99_ms %.3f\n", latency:percentile(99) / 1000))
   io.write(string.format("wrk_errors %d\n", e.connect + e.read + e.write + e.timeout))
   io.write(string.format("wrk_non2xx %d\n", e.status))
   io.write(string.format("wrk_exhausted %d\n", ex))
end
