/**
 * Carrying out one request of a delivery: an HTTP POST dialed through the probes' `Dial` (so the internal-address
 * guard judges every address a name resolves to, at send time, unless `checker.allow_private_targets` is on) and
 * spoken to by an undici `Client` that is handed that socket; or a mail through SMTP. Each is bounded by
 * `notifier.timeout_secs`. Redirects are not followed: a receiver that moved answers 3xx, which is a failure the
 * delivery log shows.
 */
import type * as Net from "node:net"
import * as Tls from "node:tls"
import * as AddressGuard from "@signalman/checks/AddressGuard"
import * as Dial from "@signalman/checks/Dial"
import type { ProbeSettings } from "@signalman/checks/ProbeSettings"
import type { Resolver } from "@signalman/checks/Resolver"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Scope from "effect/Scope"
import { Client, type Dispatcher } from "undici"
import { Mailer } from "../infra/Mailer.js"
import type { Request } from "./Requests.js"

/** The outcome of one request: accepted (`ok`), or the reason, with the HTTP status when there was an answer. */
export interface Outcome {
  readonly ok: boolean
  readonly status_code: number | null
  readonly error: string | null
}

export interface Options {
  readonly timeout: Duration.Duration
  /** Trusted roots for https: the system's plus `notifier.extra_ca_file`; undefined keeps Node's default. */
  readonly ca: ReadonlyArray<string> | undefined
  /** False when `mail.smtp_url` is unset: the mailer would only log, which is no delivery. */
  readonly mailConfigured: boolean
}

const failed = (error: string, status_code: number | null = null): Outcome => ({ ok: false, status_code, error })

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))

const ignore = (): void => {}

const secure = (
  socket: Net.Socket,
  host: string,
  ca: ReadonlyArray<string> | undefined
): Effect.Effect<Tls.TLSSocket, string, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const name = host.replace(/^\[|\]$/g, "").replace(/\.$/, "")
      const isAddress = AddressGuard.parseLiteral(name) !== undefined
      return Tls.connect({
        socket,
        host: name,
        ...(isAddress ? {} : { servername: name }),
        rejectUnauthorized: true,
        ALPNProtocols: ["http/1.1"],
        ...(ca === undefined ? {} : { ca: [...ca] })
      }).on("error", ignore)
    }),
    (tls) => Effect.sync(() => tls.destroy())
  ).pipe(
    Effect.flatMap((tls) =>
      Effect.async<Tls.TLSSocket, string>((resume) => {
        const onReady = () => {
          tls.off("error", onError)
          resume(Effect.succeed(tls))
        }
        const onError = (error: Error) => {
          tls.off("secureConnect", onReady)
          resume(Effect.fail(`tls: ${error.message}`))
        }
        tls.once("secureConnect", onReady)
        tls.once("error", onError)
      })
    )
  )

const readPrefix = (body: Dispatcher.ResponseData["body"], limit: number): Effect.Effect<string> =>
  Effect.promise(async () => {
    const chunks: Array<Uint8Array> = []
    let size = 0
    try {
      for await (const chunk of body as AsyncIterable<unknown>) {
        if (!(chunk instanceof Uint8Array)) continue
        chunks.push(chunk.subarray(0, limit - size))
        size += Math.min(chunk.length, limit - size)
        if (size >= limit) break
      }
    } catch {
      // What arrived is enough to explain a failure.
    }
    return new TextDecoder("utf-8").decode(Buffer.concat(chunks)).replace(/\s+/g, " ").trim()
  })

const http = (
  request: Extract<Request, { _tag: "Http" }>,
  options: Options
): Effect.Effect<Outcome, never, Resolver | ProbeSettings> =>
  Effect.gen(function* () {
    const url = new URL(request.url)
    const https = url.protocol === "https:"
    const dialed = yield* Effect.either(
      Dial.tcp({
        host: url.hostname,
        port: url.port === "" ? (https ? 443 : 80) : Number(url.port),
        ipVersion: "any"
      })
    )
    if (Either.isLeft(dialed)) return failed(dialed.left.message)
    let socket: Net.Socket = dialed.right.socket
    if (https) {
      const secured = yield* Effect.either(secure(socket, url.hostname, options.ca))
      if (Either.isLeft(secured)) return failed(secured.left)
      socket = secured.right
    }
    const client = yield* Effect.acquireRelease(
      // The delivery's own timeout bounds the exchange, so undici's timers are off.
      Effect.sync(() => new Client(url.origin, { connect: Dial.connector(socket), headersTimeout: 0, bodyTimeout: 0 })),
      (client) => Effect.sync(() => void client.destroy().catch(ignore))
    )
    const answered = yield* Effect.either(
      Effect.tryPromise({
        try: (signal) =>
          client.request({
            path: `${url.pathname}${url.search}`,
            method: "POST",
            headers: { ...request.headers, "content-length": String(Buffer.byteLength(request.body)) },
            body: request.body,
            signal
          }),
        catch: messageOf
      })
    )
    if (Either.isLeft(answered)) return failed(answered.left)
    const response = answered.right
    const text = yield* readPrefix(response.body, 2048)
    const code = response.statusCode
    if (code >= 200 && code < 300) return { ok: true, status_code: code, error: null }
    return failed(`HTTP ${code}${text === "" ? "" : `: ${text.slice(0, 300)}`}`, code)
  }).pipe(Effect.scoped)

/** Carries out one request; never fails: every problem is an outcome to record. */
export const send = (
  request: Request,
  options: Options
): Effect.Effect<Outcome, never, Resolver | ProbeSettings | Mailer> => {
  const run: Effect.Effect<Outcome, never, Resolver | ProbeSettings | Mailer> =
    request._tag === "Http"
      ? http(request, options)
      : options.mailConfigured
        ? Effect.flatMap(Mailer, (mailer) =>
            mailer.send({ to: request.to.join(", "), subject: request.subject, text: request.text })
          ).pipe(
            Effect.as<Outcome>({ ok: true, status_code: null, error: null }),
            Effect.catchAll((error) => Effect.succeed(failed(`smtp: ${messageOf(error.cause)}`)))
          )
        : Effect.succeed(failed("no mail server is configured on this instance (mail.smtp_url)"))
  return run.pipe(
    Effect.timeoutTo({
      duration: options.timeout,
      onSuccess: (outcome) => outcome,
      onTimeout: () => failed(`timed out after ${Duration.format(options.timeout)}`)
    })
  )
}
