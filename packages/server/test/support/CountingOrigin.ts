/**
 * A loopback HTTP server that answers 200 (or the status a path asks for: `/status/503`) and records when each
 * path was requested, for tests that count scheduled checks. A path under `/slow/<ms>/` is answered after that
 * many milliseconds, and one under `/hold/` only when the test calls `release`, so a test can keep checks in
 * flight; `peak` is the most requests the server ever had open at once.
 */
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"

export interface CountingOrigin {
  readonly base: string
  /** Arrival times (ms) by path. */
  readonly hits: Map<string, Array<number>>
  readonly count: (path: string) => number
  /** The Authorization header each path was last requested with. */
  readonly authorization: Map<string, string | undefined>
  /** Answers every request held under `/hold/` so far. */
  readonly release: () => void
  /** The most requests open (arrived, not yet answered) at once. */
  readonly peak: () => number
}

export const make: Effect.Effect<CountingOrigin, never, Scope.Scope> = Effect.gen(function* () {
  const hits = new Map<string, Array<number>>()
  const authorization = new Map<string, string | undefined>()
  const held: Array<() => void> = []
  let open = 0
  let peak = 0
  const server = yield* Effect.acquireRelease(
    Effect.promise(
      () =>
        new Promise<Http.Server>((resolve) => {
          const s = Http.createServer((request, response) => {
            const path = request.url ?? "/"
            hits.set(path, [...(hits.get(path) ?? []), Date.now()])
            authorization.set(path, request.headers.authorization)
            open++
            peak = Math.max(peak, open)
            const status = /^\/status\/(\d{3})/.exec(path)?.[1]
            const answer = () => {
              open--
              response
                .writeHead(status === undefined ? 200 : Number(status), { "content-type": "text/plain" })
                .end("ok")
            }
            const slow = /^\/slow\/(\d+)\//.exec(path)?.[1]
            if (path.startsWith("/hold/")) held.push(answer)
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
    hits,
    count: (path: string) => hits.get(path)?.length ?? 0,
    authorization,
    release: () => {
      for (const answer of held.splice(0)) answer()
    },
    peak: () => peak
  }
})
