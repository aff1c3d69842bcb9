/**
 * The load generator of `bench/ingest.ts`, in a process of its own so that its CPU is not the bench's bookkeeping
 * and shows up apart in the report (both share the machine's cores with the server measured: said in the report).
 *
 * Driven over the IPC channel (`process.send`): a `Run` message starts one autocannon run of GET requests, each
 * the next path of a round robin over `paths`, at `rate` a second overall (0: as fast as the connections go), for
 * `amount` requests (every one answered or failed before the run ends, so answers can be counted exactly) or for
 * `seconds`. A `Stop` message ends the current run early (the SIGTERM phase: once the server has exited). The
 * answer is one `Done` message: responses by status, errors, latency, and the 2xx answers of every path.
 *
 * autocannon's rate cap is per connection and per second (each connection sends its share of the second's requests
 * as soon as it can, then waits for the next second): an offered rate is bursts at the top of each second, not a
 * steady stream, which shows in the latency of the capped runs.
 */
import autocannon from "autocannon"
import * as Schema from "effect/Schema"

/** One measured run. */
export const Run = Schema.TaggedStruct("Run", {
  origin: Schema.String,
  paths: Schema.Array(Schema.String),
  connections: Schema.Int,
  rate: Schema.Number,
  amount: Schema.optional(Schema.Int),
  seconds: Schema.optional(Schema.Number),
  /**
   * Ends the run this long after its first failed request (the SIGTERM run: once the server stops listening every
   * new connection is refused at once, and a generator retrying in a loop would take the cores the draining server
   * needs). Long enough for the requests still in flight on open connections to be answered.
   */
  stopAfterErrorMs: Schema.optional(Schema.Number)
})
export type Run = typeof Run.Type

/** Ends the current run now. */
export const Stop = Schema.TaggedStruct("Stop", {})

export const Command = Schema.Union(Run, Stop)

/** What a run measured. */
export const Done = Schema.TaggedStruct("Done", {
  durationSecs: Schema.Number,
  requests: Schema.Int,
  statuses: Schema.Record({ key: Schema.String, value: Schema.Int }),
  errors: Schema.Int,
  timeouts: Schema.Int,
  latencyMs: Schema.Struct({ p50: Schema.Number, p99: Schema.Number, mean: Schema.Number, max: Schema.Number }),
  /** 2xx answers by path index, counted from every response as it arrives. */
  okByPath: Schema.Array(Schema.Int),
  /** The generator's own CPU over the run (user + system), in seconds. */
  cpuSecs: Schema.Number,
  /** When the first request failed (no answer: refused, reset), in seconds from the start; null when none did. */
  firstErrorSecs: Schema.NullOr(Schema.Number)
})
export type Done = typeof Done.Type

const decodeCommand = Schema.decodeUnknownSync(Command)

let current: autocannon.Instance | undefined

const start = (run: Run): void => {
  const okByPath = new Array<number>(run.paths.length).fill(0)
  // The path each connection has in flight (no pipelining: one per connection), keyed by autocannon's context.
  const inFlight = new WeakMap<object, number>()
  let cursor = 0
  const cpuBefore = process.cpuUsage()
  const started = process.hrtime.bigint()
  // autocannon notices the end of a fixed-amount run only at its next one-second sample: the run's duration is
  // taken from the last response instead.
  let lastResponse = started
  let firstError: bigint | null = null
  current = autocannon(
    {
      url: run.origin,
      connections: run.connections,
      pipelining: 1,
      timeout: 10,
      ...(run.rate > 0 ? { overallRate: run.rate } : {}),
      ...(run.amount === undefined ? { duration: run.seconds ?? 10 } : { amount: run.amount }),
      requests: [
        {
          setupRequest: (request, context) => {
            const index = cursor++ % run.paths.length
            inFlight.set(context, index)
            return { ...request, path: run.paths[index] ?? "/ping/none" }
          },
          onResponse: (status, _body, context) => {
            lastResponse = process.hrtime.bigint()
            const index = inFlight.get(context)
            if (index !== undefined && status >= 200 && status < 300) okByPath[index] = (okByPath[index] ?? 0) + 1
          }
        }
      ]
    },
    (error, result) => {
      clearTimeout(stopTimer)
      current = undefined
      const cpu = process.cpuUsage(cpuBefore)
      if (error !== null && error !== undefined) {
        process.stderr.write(`ingest-load: ${String(error)}\n`)
        process.exit(1)
      }
      const statuses: Record<string, number> = {}
      for (const [code, stats] of Object.entries(result.statusCodeStats ?? {})) statuses[code] = stats.count ?? 0
      const done: Done = {
        _tag: "Done",
        durationSecs: Number(lastResponse - started) / 1e9,
        requests: result.requests.total,
        statuses,
        errors: result.errors,
        timeouts: result.timeouts,
        latencyMs: {
          p50: result.latency.p50,
          p99: result.latency.p99,
          mean: result.latency.mean,
          max: result.latency.max
        },
        okByPath,
        cpuSecs: (cpu.user + cpu.system) / 1e6,
        firstErrorSecs: firstError === null ? null : Number(firstError - started) / 1e9
      }
      process.send?.(done)
    }
  )
  current.once("reqError", () => {
    firstError = process.hrtime.bigint()
    const stopAfter = run.stopAfterErrorMs
    if (stopAfter !== undefined) stopTimer = setTimeout(() => current?.stop(), stopAfter)
  })
}

let stopTimer: ReturnType<typeof setTimeout> | undefined

process.on("message", (message: unknown) => {
  const command = decodeCommand(message)
  if (command._tag === "Stop") current?.stop()
  else start(command)
})
// The bench going away ends this process too.
process.on("disconnect", () => process.exit(0))
