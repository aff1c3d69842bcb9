/**
 * The tls_cert probe: a TCP connection and a TLS handshake that accepts any chain (the check is about expiry,
 * not trust), then the leaf certificate's notAfter against the warning windows. SNI is `server_name` when set,
 * else the host (never an IP address).
 *
 * Status: days_remaining < 0 or < critical_days is `down`, < warn_days `degraded`, otherwise `up`, with
 * days_remaining = floor((notAfter - now) / 1 day) on Effect's `Clock`. When no certificate could be read
 * (handshake failure, refused connection, no address, a blocked address, the outer timeout) the check could not
 * judge, so the status is `error` with the underlying message.
 *
 * @since 0.1.0
 */
import type * as Tls from "node:tls"
import type { CheckStatus, ProbeOutcome } from "@signalman/core/CheckResult"
import type { TlsCertCheck } from "@signalman/core/CheckSpec"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Dial from "./Dial.js"
import * as Probe from "./internal/probe.js"
import type { ProbeSettings } from "./ProbeSettings.js"
import type { Resolver } from "./Resolver.js"

const day = 24 * 60 * 60 * 1000

/**
 * Whole days from `now` to `notAfter` (both epoch milliseconds), rounded down: negative once expired.
 *
 * @since 0.1.0
 * @category rules
 */
export const daysRemaining = (notAfter: number, now: number): number => Math.floor((notAfter - now) / day)

/**
 * The status for a certificate with `days` left under the check's windows.
 *
 * @since 0.1.0
 * @category rules
 */
export const statusFor = (
  days: number,
  windows: { readonly warn_days: number; readonly critical_days: number }
): CheckStatus => (days < 0 || days < windows.critical_days ? "down" : days < windows.warn_days ? "degraded" : "up")

/**
 * What a result says about the certificate it read.
 *
 * @since 0.1.0
 * @category models
 */
export type CertificateDetails = {
  readonly days_remaining: number
  /** RFC 3339 with milliseconds, UTC. */
  readonly not_after: string
  readonly subject_common_name: string | null
  readonly issuer_common_name: string | null
}

const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

// OpenSSL's ASN1_TIME_print form that Node reports (`Mar  1 12:00:00 2030 GMT`), read exactly rather than left to
// Date.parse's lenient guessing.
const parseOpenSslTime = (text: string): number | undefined => {
  const match = /^([A-Z][a-z]{2}) +(\d{1,2}) (\d{2}):(\d{2}):(\d{2}) (\d{4}) GMT$/.exec(text)
  if (match === null) return undefined
  const [, month, date, hours, minutes, seconds, year] = match
  const index = months.indexOf(month ?? "")
  if (index === -1) return undefined
  return Date.UTC(Number(year), index, Number(date), Number(hours), Number(minutes), Number(seconds))
}

// A name field holds an array when the certificate repeats it; the first is the one people read.
const commonName = (name: unknown): string | null => {
  if (typeof name !== "object" || name === null || !("CN" in name)) return null
  const cn = name.CN
  if (typeof cn === "string") return cn
  return Array.isArray(cn) && typeof cn[0] === "string" ? cn[0] : null
}

const readLeaf = (
  socket: Tls.TLSSocket
): Either.Either<
  { readonly notAfter: number; readonly subject: string | null; readonly issuer: string | null },
  string
> => {
  const leaf = socket.getPeerCertificate(false)
  // Node answers an empty object, not null, when the peer sent no certificate.
  if (typeof leaf.valid_to !== "string") return Either.left("tls: the server sent no certificate")
  const notAfter = parseOpenSslTime(leaf.valid_to)
  if (notAfter === undefined) return Either.left(`tls: unreadable notAfter ${JSON.stringify(leaf.valid_to)}`)
  return Either.right({ notAfter, subject: commonName(leaf.subject), issuer: commonName(leaf.issuer) })
}

/**
 * Runs a tls_cert check. Never fails: every outcome is a result.
 *
 * @since 0.1.0
 * @category probes
 */
export const probe = (check: TlsCertCheck): Effect.Effect<ProbeOutcome, never, Resolver | ProbeSettings> =>
  Probe.run<Resolver | ProbeSettings>({
    timeoutSeconds: check.timeout,
    body: (log) =>
      Effect.gen(function* () {
        const dialed = yield* Effect.either(
          Dial.tls(
            { host: check.host, port: check.port, ipVersion: check.ip_version },
            { servername: check.server_name, verify: false },
            log.add
          )
        )
        if (Either.isLeft(dialed)) return { status: "error", error: dialed.left.message, details: null }
        const leaf = readLeaf(dialed.right.socket)
        if (Either.isLeft(leaf)) return { status: "error", error: leaf.left, details: null }
        const now = yield* Clock.currentTimeMillis
        const details: CertificateDetails = {
          days_remaining: daysRemaining(leaf.right.notAfter, now),
          not_after: new Date(leaf.right.notAfter).toISOString(),
          subject_common_name: leaf.right.subject,
          issuer_common_name: leaf.right.issuer
        }
        const status = statusFor(details.days_remaining, check)
        return { status, error: status === "up" ? null : JSON.stringify(details), details }
      }),
    onTimeout: (message) => Effect.succeed({ status: "error", error: message, details: null })
  })
