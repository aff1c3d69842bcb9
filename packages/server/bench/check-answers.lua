-- wrk script for the benchmarks: every answer is checked against the representation read before the run, and the
-- failures are counted by kind, so the load generator (C, far cheaper per answer than a JavaScript one) does not
-- saturate before the server while nothing goes unchecked.
--
--   wrk ... -s check-answers.lua <url> -- <expected body file> [check] ...
--
-- An answer passes when its status is 200, its Content-Length is its body's length, its body is byte for byte the
-- expected file, and every header check holds: `name=value` (present with exactly that value), `name~pattern` (a Lua
-- pattern), `!name` (absent). `vary=pattern` names one part of the body that may differ from the expected file (a
-- JSON answer's `generated_at`, new each cache window): a body that is not the expected one passes when both are equal
-- with that part taken out. A body seen once is remembered with its ETag, so each later answer costs one string
-- intern (LuaJIT hashes it and compares it with the known one by memcmp), a table lookup and its header checks; the
-- same body must always come with the same ETag. `done` prints one line, `WRK-RESULT {json}`, that the benchmark
-- decodes.

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

-- Header names as the server wrote them (lower case here); any other casing is still found, at the cost of a scan.
local function header(headers, name)
  local value = headers[name]
  if value ~= nil then return value end
  for key, v in pairs(headers) do
    if key:lower() == name then return v end
  end
  return nil
end

function init(args)
  local file = assert(io.open(args[1], "rb"))
  expected = file:read("*a")
  file:close()
  exact, patterns, absent, vary = {}, {}, {}, nil
  for i = 2, #args do
    local arg = args[i]
    local name, op, value = arg:match("^([^=~!]+)([=~])(.*)$")
    if name == "vary" and op == "=" then
      vary = value
    elseif op == "=" then
      exact[name:lower()] = value
    elseif op == "~" then
      patterns[name:lower()] = value
    elseif arg:sub(1, 1) == "!" then
      table.insert(absent, arg:sub(2):lower())
    else
      error("bad check: " .. arg)
    end
  end
  masked_expected = vary and expected:gsub(vary, "", 1)
  -- Bodies that passed, with the ETag they came with; bounded, since a varying part makes a new body per window.
  known, known_count = {}, 0
  answers, bad_status, bad_body, bad_header = 0, 0, 0, 0
  statuses = {}
  first = ""
end

local function note(problem)
  if first == "" then first = problem end
end

local function header_problem(headers, body)
  if tonumber(header(headers, "content-length")) ~= #body then
    return "content-length: " .. tostring(header(headers, "content-length")) .. " for a body of " .. #body .. " bytes"
  end
  for name, value in pairs(exact) do
    local got = header(headers, name)
    if got ~= value then return name .. ": " .. tostring(got) .. ", not " .. value end
  end
  for name, pattern in pairs(patterns) do
    local got = header(headers, name)
    if got == nil or not got:match(pattern) then return name .. ": " .. tostring(got) .. ", not ~" .. pattern end
  end
  for _, name in ipairs(absent) do
    local got = header(headers, name)
    if got ~= nil then return name .. ": " .. got .. ", expected none" end
  end
  return nil
end

function response(status, headers, body)
  answers = answers + 1
  if status ~= 200 then
    bad_status = bad_status + 1
    local key = tostring(status)
    statuses[key] = (statuses[key] or 0) + 1
    note("status " .. key)
    return
  end
  local etag = header(headers, "etag") or ""
  local tag = known[body]
  if tag == nil then
    if body ~= expected and (vary == nil or body:gsub(vary, "", 1) ~= masked_expected) then
      bad_body = bad_body + 1
      note("body of " .. #body .. " bytes, not the expected " .. #expected .. ": " .. body:sub(1, 120))
      return
    end
    if known_count >= 64 then
      known, known_count = {}, 0
    end
    known[body], known_count = etag, known_count + 1
  elseif tag ~= etag then
    bad_header = bad_header + 1
    note("etag: " .. etag .. " for a body seen with " .. tag)
    return
  end
  local problem = header_problem(headers, body)
  if problem ~= nil then
    bad_header = bad_header + 1
    note(problem)
  end
end

local function json_string(s)
  return '"' .. s:gsub('[%c"\\\128-\255]', function(c) return string.format("\\u%04x", c:byte()) end) .. '"'
end

function done(summary, latency, requests)
  local total = { answers = 0, bad_status = 0, bad_body = 0, bad_header = 0 }
  local statuses_all, first_all = {}, ""
  for _, thread in ipairs(threads) do
    for key in pairs(total) do total[key] = total[key] + (thread:get(key) or 0) end
    for code, n in pairs(thread:get("statuses") or {}) do statuses_all[code] = (statuses_all[code] or 0) + n end
    local f = thread:get("first") or ""
    if first_all == "" then first_all = f end
  end
  local codes = {}
  for code, n in pairs(statuses_all) do table.insert(codes, json_string(code) .. ":" .. n) end
  local e = summary.errors
  io.write(string.format(
    'WRK-RESULT {"requests":%d,"duration_us":%d,"answers":%d,"bad_status":%d,"bad_body":%d,"bad_header":%d,' ..
    '"statuses":{%s},"errors":{"connect":%d,"read":%d,"write":%d,"timeout":%d},"first":%s}\n',
    summary.requests, summary.duration, total.answers, total.bad_status, total.bad_body, total.bad_header,
    table.concat(codes, ","), e.connect, e.read, e.write, e.timeout, json_string(first_all)))
end
