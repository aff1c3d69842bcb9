/**
 * A monitored service on loopback for tests with probe agents: it records each request's arrival (path, the
 * `X-Signalman-Region` it carried, when it came, when it was answered, and whether the prober went away before the
 * answer), so a test can count the runs of each monitor and see a check cut short by a killed agent.
 *
 * `/hold/<name>` is answered only once the test releases `<name>` (later requests for it are answered at once), so
 * a test can keep chosen checks in flight; `/slow/<ms>/<name>` is answered after that many milliseconds; any other
 * path at once. Every answer is 200.
 */
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"

export interface Arrival {
  readonly path: string
  readonly region: string | undefined
  /** When the request arrived (epoch ms). */
  readonly at: number
  /** When it was answered; undefined while it is held or delayed, and for one whose prober went away first. */
  answeredAt: number | undefined
  /** The prober closed the connection before the answer (it was killed mid-check). */
  aborted: boolean
}

export interface ProbeOrigin {
  readonly base: string
  /** Every request so far, in arrival order. */
  readonly arrivals: ReadonlyArray<Arrival>
  /** The arrivals for one path. */
  readonly of: (path: string) => ReadonlyArray<Arrival>
  /** Requests arrived and neither answered nor abandoned. */
  readonly open: () => ReadonlyArray<Arrival>
  /** Answers the held requests of these `/hold/` names, and every later one at once. */
  readonly release: (names: Iterable<string>) => void
}

export const make: Effect.Effect<ProbeOrigin, never, Scope.Scope> = Effect.gen(function* () {
  const arrivals: Array<Arrival> = []
  const released = new Set<string>()
  const held = new Map<string, Array<() => void>>()
  const server = yield* Effect.acquireRelease(
    Effect.promise(
      () =>
        new Promise<Http.Server>((resolve) => {
          const s = Http.createServer((request, response) => {
            const path = request.url ?? "/"
            const header = request.headers["x-signalman-region"]
            const arrival: Arrival = {
              path,
              region: typeof header === "string" ? header : undefined,
              at: Date.now(),
              answeredAt: undefined,
              aborted: false
            }
            arrivals.push(arrival)
            response.on("close", () => {
              if (arrival.answeredAt === undefined) arrival.aborted = true
            })
            const answer = () => {
              if (arrival.aborted) return
              arrival.answeredAt = Date.now()
              response.writeHead(200, { "content-type": "text/plain" }).end("ok")
            }
            const hold = /^\/hold\/(.+)$/.exec(path)?.[1]
            const slow = /^\/slow\/(\d+)\//.exec(path)?.[1]
            if (hold !== undefined && !released.has(hold)) held.set(hold, [...(held.get(hold) ?? []), answer])
            else if (slow !== undefined) setTimeout(answer, Number(slow))
            else answer()
          })
          s.listen(0, "127.0.0.1", () => resolve(s))
        })
    ),
    (s) =>
      Effect.promise(
        () =>
          new Promise<void>((resolve) => {
            s.closeAllConnections()
            s.close(() => resolve())
          })
      )
  )
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrivals,
    of: (path) => arrivals.filter((arrival) => arrival.path === path),
    open: () => arrivals.filter((arrival) => arrival.answeredAt === undefined && !arrival.aborted),
    release: (names) => {
      for (const name of names) {
        released.add(name)
        for (const answer of held.get(name) ?? []) answer()
        held.delete(name)
      }
    }
  }
})
