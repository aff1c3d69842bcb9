/**
 * A loopback HTTP server that answers 200 (or the status a path asks for: `/status/503`) and records when each
 * path was requested, for tests that count scheduled checks.
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
}

export const make: Effect.Effect<CountingOrigin, never, Scope.Scope> = Effect.gen(function* () {
  const hits = new Map<string, Array<number>>()
  const authorization = new Map<string, string | undefined>()
  const server = yield* Effect.acquireRelease(
    Effect.promise(
      () =>
        new Promise<Http.Server>((resolve) => {
          const s = Http.createServer((request, response) => {
            const path = request.url ?? "/"
            hits.set(path, [...(hits.get(path) ?? []), Date.now()])
            authorization.set(path, request.headers.authorization)
            const status = /^\/status\/(\d{3})/.exec(path)?.[1]
            response.writeHead(status === undefined ? 200 : Number(status), { "content-type": "text/plain" }).end("ok")
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
    authorization
  }
})
