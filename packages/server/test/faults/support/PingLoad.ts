/**
 * Heartbeat pings as load for a fault test, with a ledger of every answer: each monitor is pinged every
 * `everyMs` (above the 1-a-second limit of a token, so none is refused for its rate), round robin over the api
 * processes given, until `stop` or the time and count bounds. The test then compares the ledger with what the
 * database holds: every ping answered 2xx is stored exactly once, and no other.
 */
import * as Http from "node:http"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type * as Scope from "effect/Scope"
import type { Heartbeat } from "./Monitors.js"

export interface Answer {
  readonly monitorId: string
  /** The HTTP status; 0 when no answer came (connection refused or reset, or the 10 s bound). */
  readonly status: number
  /** When the ping was sent and when its answer came (epoch ms). */
  readonly sentAt: number
  readonly answeredAt: number
  /** The body of a non-2xx answer (the error envelope), for the failure message. */
  readonly body: string
}

export interface PingLoad {
  /** Every answer so far, in the order they came. */
  readonly answers: ReadonlyArray<Answer>
  /** Stops sending and waits for the pings in flight to be answered. */
  readonly stop: Effect.Effect<void>
  /** The 2xx answers per monitor, by id. */
  readonly acknowledged: () => Map<string, number>
}

/** One ping, recorded whatever becomes of it. */
export const ping = (base: string, monitorId: string, pingPath: string): Promise<Answer> => {
  const sentAt = Date.now()
  return fetch(`${base}${pingPath}`, { signal: AbortSignal.timeout(10_000) }).then(
    async (response) => {
      const body = response.ok ? "" : await response.text()
      return { monitorId, status: response.status, sentAt, answeredAt: Date.now(), body }
    },
    (error: unknown) => ({ monitorId, status: 0, sentAt, answeredAt: Date.now(), body: String(error) })
  )
}

/**
 * Starts pinging each monitor every `everyMs` (at most `maxSecs` and `maxPings` in all), spreading the pings over
 * `bases` (api processes' base URLs, read at each ping so a test can change them).
 */
export const start = (
  bases: () => ReadonlyArray<string>,
  monitors: ReadonlyArray<Heartbeat>,
  options: { readonly everyMs: number; readonly maxSecs: number; readonly maxPings: number }
): Effect.Effect<PingLoad, never, Scope.Scope> =>
  Effect.gen(function* () {
    const answers: Array<Answer> = []
    const until = Date.now() + options.maxSecs * 1000
    let sent = 0
    let next = 0
    const loop = (monitor: Heartbeat, offsetMs: number) =>
      Effect.gen(function* () {
        yield* Effect.sleep(`${offsetMs} millis`)
        while (Date.now() < until && sent < options.maxPings) {
          const targets = bases()
          const base = targets[next++ % targets.length]
          if (base !== undefined) {
            sent++
            // Not interruptible: a ping sent is recorded, whatever its answer, before the loop can stop.
            yield* Effect.uninterruptible(
              Effect.flatMap(
                Effect.promise(() => ping(base, monitor.id, monitor.pingPath)),
                (answer) => Effect.sync(() => answers.push(answer))
              )
            )
          }
          yield* Effect.sleep(`${options.everyMs} millis`)
        }
      })
    // Spread over the period, so the pings of the monitors do not all come at once.
    const fiber = yield* Effect.forkScoped(
      Effect.forEach(monitors, (m, i) => loop(m, Math.floor((options.everyMs * i) / monitors.length)), {
        concurrency: "unbounded",
        discard: true
      })
    )
    return {
      answers,
      // Interrupting waits for a ping in flight (its step is uninterruptible), so the ledger is complete after.
      stop: Effect.asVoid(Fiber.interrupt(fiber)),
      acknowledged: () => {
        const counts = new Map(monitors.map((m) => [m.id, 0]))
        for (const a of answers) {
          if (a.status >= 200 && a.status < 300) counts.set(a.monitorId, (counts.get(a.monitorId) ?? 0) + 1)
        }
        return counts
      }
    }
  })

export interface Trickle {
  /** Sends the rest of the body and answers what the server said. */
  readonly finish: () => Promise<Answer>
}

/**
 * A POST ping whose body is sent in two parts: the request is in flight at the server (the ping counted, its
 * body being read) from when this resolves until `finish`. For a drain: a request under way when the signal came.
 */
export const trickle = (base: string, monitorId: string, pingPath: string): Promise<Trickle> =>
  new Promise((resolve, reject) => {
    const sentAt = Date.now()
    const url = new URL(`${base}${pingPath}`)
    const head = "first half of the job's log\n"
    const tail = "second half, sent after the signal\n"
    const answered = new Promise<Answer>((done) => {
      const request = Http.request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: "POST",
          headers: { "content-type": "text/plain", "content-length": String(head.length + tail.length) }
        },
        (response) => {
          let body = ""
          response.setEncoding("utf8")
          response.on("data", (chunk: string) => {
            body += chunk
          })
          response.on("end", () =>
            done({ monitorId, status: response.statusCode ?? 0, sentAt, answeredAt: Date.now(), body })
          )
        }
      )
      request.on("error", (error) =>
        done({ monitorId, status: 0, sentAt, answeredAt: Date.now(), body: String(error) })
      )
      request.write(head, (error) => {
        if (error !== undefined && error !== null) reject(error)
        else resolve({ finish: () => new Promise<Answer>((sent) => request.end(tail, () => sent(answered))) })
      })
    })
  })
