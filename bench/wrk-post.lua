-- wrk script: POST the file named by $BENCH_MODEL as the raw request body.
local f = assert(io.open(os.getenv("BENCH_MODEL"), "rb"))
wrk.method = "POST"
wrk.body = f:read("*a")
f:close()
wrk.headers["Content-Type"] = "application/octet-stream"
