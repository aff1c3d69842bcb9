/**
 * A loopback HTTP or HTTPS server standing in for a notification service (a webhook receiver, Slack, PagerDuty,
 * ...): it keeps every request it gets and answers what the test chooses. The HTTPS one uses a self-signed
 * certificate made with openssl for 127.0.0.1; `caFile` is that certificate, for `notifier.extra_ca_file`.
 */
import { execFileSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Http from "node:http"
import * as Https from "node:https"
import type { AddressInfo } from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"

export interface Received {
  readonly method: string
  readonly path: string
  readonly headers: Http.IncomingHttpHeaders
  readonly body: string
  /** When the request's body had fully arrived (Date.now()). */
  readonly at: number
}

export interface Answer {
  readonly status: number
  readonly body?: string
}

export interface FakeReceiver {
  readonly url: string
  readonly received: () => ReadonlyArray<Received>
  /** Waits (bounded) until at least `count` requests arrived; answers them all. */
  readonly waitFor: (count: number, timeoutMs?: number) => Effect.Effect<ReadonlyArray<Received>>
}

export interface Certificate {
  readonly key: string
  readonly cert: string
  readonly caFile: string
}

/** A self-signed certificate for 127.0.0.1, written to a temp directory removed with the scope. */
export const certificate: Effect.Effect<Certificate, never, Scope.Scope> = Effect.acquireRelease(
  Effect.sync(() => {
    const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "sm-notify-"))
    const keyFile = Path.join(dir, "key.pem")
    const certFile = Path.join(dir, "cert.pem")
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-keyout",
        keyFile,
        "-out",
        certFile,
        "-days",
        "2",
        "-subj",
        "/CN=127.0.0.1",
        "-addext",
        "subjectAltName=IP:127.0.0.1"
      ],
      { stdio: "ignore" }
    )
    return { key: Fs.readFileSync(keyFile, "utf8"), cert: Fs.readFileSync(certFile, "utf8"), caFile: certFile, dir }
  }),
  ({ dir }) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
)

export const make = (
  answer: (request: Received, index: number) => Answer = () => ({ status: 200 }),
  tls?: Certificate
): Effect.Effect<FakeReceiver, never, Scope.Scope> =>
  Effect.gen(function* () {
    const received: Array<Received> = []
    const handler: Http.RequestListener = (request, response) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        const entry: Received = {
          method: request.method ?? "",
          path: request.url ?? "",
          headers: request.headers,
          body: Buffer.concat(chunks).toString("utf8"),
          at: Date.now()
        }
        received.push(entry)
        const reply = answer(entry, received.length - 1)
        response.writeHead(reply.status, { "content-type": "text/plain" }).end(reply.body ?? "")
      })
    }
    const server = yield* Effect.acquireRelease(
      Effect.async<Http.Server>((resume) => {
        const created =
          tls === undefined ? Http.createServer(handler) : Https.createServer({ key: tls.key, cert: tls.cert }, handler)
        created.listen(0, "127.0.0.1", () => resume(Effect.succeed(created)))
      }),
      (server) =>
        Effect.async<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )
    const port = (server.address() as AddressInfo).port
    return {
      url: `${tls === undefined ? "http" : "https"}://127.0.0.1:${port}`,
      received: () => [...received],
      // Generous: on a loaded machine a delivery can take seconds; the wait ends as soon as the count is reached.
      waitFor: (count, timeoutMs = 30_000) =>
        Effect.promise(async () => {
          const until = Date.now() + timeoutMs
          while (received.length < count && Date.now() < until) await new Promise((r) => setTimeout(r, 20))
          return [...received]
        })
    }
  })
