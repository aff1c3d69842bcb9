/**
 * The http probe: one request, and the redirects it leads to, whose final answer must match `expected_status`
 * and, optionally, contain `expected_body_contains`.
 *
 * Every hop's host is resolved and guarded by {@link Dial.resolve} (so the resolver, the internal-address guard and
 * `ip_version` apply to each redirect target, relative or not); the hop then connects to the allowed addresses
 * only (happy eyeballs, as `Dial` does) and speaks to them through an undici `Client` whose `connect` hands over
 * that socket: undici never resolves or connects by itself. The hop's I/O (connect, handshake, request, answer)
 * is one asynchronous step bounded by the check's deadline (`internal/exchange.ts`). Redirects are followed by
 * hand, at most 10; a cross-origin hop drops the credentials, and 301/302 after POST and 303 turn into GET as
 * browsers do.
 *
 * Every hop carries `User-Agent` (the probes' own unless the check sets one) and `X-Signalman-Region` (always this
 * region's id, whatever the check's headers say).
 *
 * `{{key}}` variable references in the url, headers, body and expected_body_contains are resolved by the caller
 * before the probe runs: the probe sends exactly what it is given.
 *
 * Status: `up` when the status is expected (and the body, when asked, contains the text); `degraded` for 429 and
 * 503 unless `expected_status` accepts them; `down` for any other status, a body without the text, and every
 * failure to get an answer (DNS, refused, TLS, reset); `error` only when the check could not judge: the outer
 * timeout, an address the guard refuses (`blocked: ...`), or a url or request that cannot be sent.
 *
 * @since 0.1.0
 */
import type { CheckStatus, ProbeOutcome } from "@signalman/core/CheckResult"
import type { ExpectedStatus, HttpCheck, HttpMethod } from "@signalman/core/CheckSpec"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type { Dispatcher } from "undici"
import * as AddressGuard from "./AddressGuard.js"
import * as Dial from "./Dial.js"
import * as Exchange from "./internal/exchange.js"
import * as Probe from "./internal/probe.js"
import { ProbeSettings, regionHeader, type Settings } from "./ProbeSettings.js"
import type { Resolver } from "./Resolver.js"

/**
 * At most this many redirects are followed.
 *
 * @since 0.1.0
 * @category constants
 */
export const maxRedirects = 10

/**
 * At most this much of a body is read to look for `expected_body_contains` (1 MiB): enough for any health page,
 * and a bound on what one check may pull over the wire.
 *
 * @since 0.1.0
 * @category constants
 */
export const maxBodyBytes = 1024 * 1024

/**
 * Does `expected` accept `code`? A code, a list of codes, a class (`"2xx"`) or an inclusive range
 * (`"200-399"`).
 *
 * @since 0.1.0
 * @category matching
 */
export const acceptsStatus = (expected: ExpectedStatus, code: number): boolean => {
  if (typeof expected === "number") return code === expected
  if (typeof expected !== "string") return expected.includes(code)
  if (expected.endsWith("xx")) return Math.floor(code / 100) === Number(expected[0])
  const [low, high] = expected.split("-").map(Number)
  return low !== undefined && high !== undefined && code >= low && code <= high
}

const describeExpected = (expected: ExpectedStatus): string =>
  typeof expected === "object" ? expected.join(", ") : String(expected)

interface Request {
  readonly url: URL
  readonly method: HttpMethod
  readonly headers: Readonly<Record<string, string>>
  readonly body: string | undefined
}

/** What the result's details say about where the check got to: the same three fields on every result. */
interface Trail {
  final_url: string
  status_code: number | null
  redirects: number
}

/** The final word on a check, before the details are attached. */
interface Judgement {
  readonly _tag: "Judgement"
  readonly status: CheckStatus
  readonly error: string | null
  readonly extra?: Readonly<Record<string, unknown>>
}

interface Redirect {
  readonly _tag: "Redirect"
  readonly location: string
  readonly code: number
}

const judged = (status: CheckStatus, error: string | null, extra?: Readonly<Record<string, unknown>>): Judgement => ({
  _tag: "Judgement",
  status,
  error,
  ...(extra === undefined ? {} : { extra })
})

const redirectCodes: ReadonlySet<number> = new Set([301, 302, 303, 307, 308])

// Sent to the first origin only: a redirect elsewhere must not carry the check's credentials.
const credentialHeaders: ReadonlySet<string> = new Set(["authorization", "cookie", "proxy-authorization"])

// Dropped with the body when a redirect turns the request into a GET (the fetch standard's request-body headers).
const bodyHeaders: ReadonlySet<string> = new Set([
  "content-type",
  "content-length",
  "content-encoding",
  "content-language",
  "content-location"
])

const firstHeaders = (check: HttpCheck, settings: Settings): Record<string, string> => {
  const headers: Record<string, string> = { "user-agent": settings.userAgent }
  for (const [name, value] of Object.entries(check.headers)) headers[name.toLowerCase()] = value
  // The region is always ours to say: set after the check's headers, and kept on every hop by `redirected`.
  headers[regionHeader] = settings.region
  // The credential fields are the structured (and redacted) way to authenticate, so they win over a header;
  // bearer_token over basic_auth when, oddly, both are set.
  // The sentinel never reaches a probe (writes refuse it); were it to, it is no credential to send.
  if (check.basic_auth !== null && check.basic_auth !== "***") {
    const pair = `${check.basic_auth.username}:${check.basic_auth.password}`
    headers.authorization = `Basic ${Buffer.from(pair, "utf8").toString("base64")}`
  }
  if (check.bearer_token !== null) headers.authorization = `Bearer ${check.bearer_token}`
  return headers
}

const headerValue = (headers: Dispatcher.ResponseData["headers"], name: string): string | undefined => {
  const value = headers[name]
  return Array.isArray(value) ? value.join(", ") : value
}

const errorCode = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
    ? error.code
    : undefined

const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error))

// The host part of a url the WHATWG parser refuses, read leniently: an IPv6 literal with a zone id
// (`http://[fe80::1%25eth0]/`) is such a url, and it must still read as blocked rather than merely invalid.
const lenientHost = (text: string): string | undefined =>
  /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#]*@)?(\[[^\]]*\]|[^:/?#]*)/i.exec(text.trim())?.[1]

// A url to request (`Right`) or the reason it cannot be (`Left`): unparsable, not http(s), or, when unparsable,
// a host that is an internal literal.
const locate = (
  text: string,
  base: URL | undefined,
  guard: Guard
): Either.Either<URL, { readonly reason: "blocked" | "invalid"; readonly message: string }> => {
  let url: URL
  try {
    url = base === undefined ? new URL(text) : new URL(text, base)
  } catch {
    const host = lenientHost(text)
    const literal = host === undefined ? undefined : AddressGuard.parseLiteral(host)
    if (host !== undefined && literal !== undefined && !guard.allowPrivateTargets) {
      const verdict = guard.policy.check(literal.toString())
      if (!verdict.allowed) {
        return Either.left({ reason: "blocked" as const, message: AddressGuard.blockedMessage(host, verdict) })
      }
    }
    return Either.left({ reason: "invalid" as const, message: `invalid url: ${text}` })
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return Either.left({ reason: "invalid" as const, message: `unsupported scheme ${url.protocol} in ${url.href}` })
  }
  return Either.right(url)
}

// The request a redirect leads to: method and body kept, except where browsers turn it into a GET.
const redirected = (request: Request, next: URL, code: number): Request => {
  const toGet = code === 303 ? request.method !== "HEAD" : (code === 301 || code === 302) && request.method === "POST"
  const sameOrigin = next.origin === request.url.origin
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(request.headers)) {
    if (toGet && bodyHeaders.has(name)) continue
    if (!sameOrigin && credentialHeaders.has(name)) continue
    headers[name] = value
  }
  return { url: next, method: toGet ? "GET" : request.method, headers, body: toGet ? undefined : request.body }
}

// What the guard needs to judge a url that does not parse, read once per check.
interface Guard {
  readonly allowPrivateTargets: boolean
  readonly policy: Dial.Policy
}

// How much of an answer's body the judgement needs: only an expected status with a text to look for reads any.
const bodyWanted =
  (check: HttpCheck) =>
  (code: number, headers: Dispatcher.ResponseData["headers"]): number => {
    if (check.expected_body_contains === undefined || !acceptsStatus(check.expected_status, code)) return 0
    return followed(check, code, headers) === undefined ? maxBodyBytes : 0
  }

// The Location to follow, when the check follows redirects and the answer is one.
const followed = (check: HttpCheck, code: number, headers: Dispatcher.ResponseData["headers"]): string | undefined => {
  if (!check.follow_redirects || !redirectCodes.has(code)) return undefined
  const location = headerValue(headers, "location")
  return location === undefined || location === "" ? undefined : location
}

const judge = (
  check: HttpCheck,
  code: number,
  headers: Dispatcher.ResponseData["headers"],
  body: Extract<Exchange.Outcome, { _tag: "Answered" }>["body"]
): Judgement => {
  if (acceptsStatus(check.expected_status, code)) {
    const needle = check.expected_body_contains
    if (needle === undefined || body === undefined) return judged("up", null)
    if (!body.ok) return judged("down", `response body: ${errorMessage(body.error)}`)
    return body.text.includes(needle)
      ? judged("up", null, { body_matched: true })
      : judged("down", `body does not contain ${JSON.stringify(needle)}`, { body_matched: false })
  }
  if (code === 429 || code === 503) {
    const retryAfter = headerValue(headers, "retry-after")
    return judged("degraded", `rate-limited ${code}${retryAfter === undefined ? "" : ` (Retry-After: ${retryAfter})`}`)
  }
  return judged("down", `unexpected status ${code} (expected ${describeExpected(check.expected_status)})`)
}

// One request over a fresh connection: the host resolved and guarded, then the hop's I/O as one step bounded by
// the check's deadline, which closes the connection when the hop is done or cut off.
const exchange = (
  check: HttpCheck,
  request: Request,
  first: boolean,
  log: Probe.PhaseLog,
  deadline: Probe.Deadline,
  trail: Trail
): Effect.Effect<Judgement | Redirect, Probe.TimedOut, Resolver | ProbeSettings> => {
  const url = request.url
  const host = url.hostname
  const https = url.protocol === "https:"
  const port = url.port === "" ? (https ? 443 : 80) : Number(url.port)
  // An IP literal is resolved without I/O; only a lookup needs bounding by the deadline (in a fiber of its own).
  const resolution =
    AddressGuard.parseLiteral(host) === undefined
      ? deadline.bound(Dial.resolve(host, check.ip_version, log.add))
      : Dial.resolve(host, check.ip_version)
  return Effect.matchEffect(resolution, {
    onFailure: (failure): Effect.Effect<Judgement, Probe.TimedOut> => {
      if (failure._tag === "TimedOut") return Effect.fail(failure)
      // A url the check names in the wrong family is its own configuration; a redirect there is the site's answer.
      const status = failure.reason === "blocked" || (failure.reason === "family" && first) ? "error" : "down"
      return Effect.succeed(judged(status, failure.message))
    },
    onSuccess: (resolved) =>
      Effect.map(
        deadline.step<Exchange.Outcome>((done) =>
          Exchange.run(
            {
              addresses: resolved.addresses,
              port,
              tls: https ? { name: Dial.serverName(host), verify: check.verify_tls, alpn: ["http/1.1"] } : undefined,
              origin: url.origin,
              path: `${url.pathname}${url.search}`,
              method: request.method,
              headers: request.headers,
              body: request.body,
              answered: (statusCode) => {
                trail.status_code = statusCode
              },
              bodyWanted: bodyWanted(check)
            },
            log.record,
            done
          )
        ),
        (outcome): Judgement | Redirect => {
          switch (outcome._tag) {
            case "DialFailed":
              return judged("down", outcome.message)
            case "RequestFailed": {
              // undici refuses arguments (a header value with a newline) before sending: the check cannot be made
              // as set.
              const status = errorCode(outcome.error) === "UND_ERR_INVALID_ARG" ? "error" : "down"
              return judged(status, errorMessage(outcome.error))
            }
            case "Answered": {
              const location = followed(check, outcome.statusCode, outcome.headers)
              if (location !== undefined) return { _tag: "Redirect", location, code: outcome.statusCode }
              return judge(check, outcome.statusCode, outcome.headers, outcome.body)
            }
          }
        }
      )
  })
}

// Requests the url and follows its redirects (at most maxRedirects, no loops) to the answer that is judged.
const follow = (
  check: HttpCheck,
  settings: Settings,
  guard: Guard,
  log: Probe.PhaseLog,
  deadline: Probe.Deadline,
  trail: Trail
): Effect.Effect<Judgement, Probe.TimedOut, Resolver | ProbeSettings> =>
  Effect.gen(function* () {
    const start = locate(check.url, undefined, guard)
    if (Either.isLeft(start)) return judged("error", start.left.message)
    let request: Request = {
      url: start.right,
      method: check.method,
      headers: firstHeaders(check, settings),
      body: check.body
    }
    const seen = new Set<string>()
    for (let redirects = 0; redirects <= maxRedirects; redirects++) {
      seen.add(`${request.method} ${request.url.href}`)
      trail.final_url = request.url.href
      trail.status_code = null
      trail.redirects = redirects
      const step = yield* exchange(check, request, redirects === 0, log, deadline, trail)
      if (step._tag === "Judgement") return step
      if (redirects === maxRedirects) break
      const next = locate(step.location, request.url, guard)
      if (Either.isLeft(next)) {
        // A location that cannot be requested is the site's answer (down), unless it names an internal address.
        return next.left.reason === "blocked"
          ? judged("error", next.left.message)
          : judged("down", `redirect to ${JSON.stringify(step.location)}: ${next.left.message}`)
      }
      request = redirected(request, next.right, step.code)
      if (seen.has(`${request.method} ${request.url.href}`)) {
        return judged("down", `redirect loop: ${request.url.href} was already requested`)
      }
    }
    return judged("down", `too many redirects (more than ${maxRedirects})`)
  })

/**
 * Runs an http check. Never fails: every outcome, including a refused address, is a result.
 *
 * @since 0.1.0
 * @category probes
 */
export const probe = (check: HttpCheck): Effect.Effect<ProbeOutcome, never, Resolver | ProbeSettings> =>
  Effect.flatMap(ProbeSettings, (settings) =>
    Effect.flatMap(Dial.AddressPolicy, (policy) => {
      const guard: Guard = { allowPrivateTargets: settings.allowPrivateTargets, policy }
      // Where the check got to, updated as it goes (one fiber runs the whole check), read by a timeout too.
      const trail: Trail = { final_url: check.url, status_code: null, redirects: 0 }
      return Probe.runBounded<Resolver | ProbeSettings>({
        timeoutSeconds: check.timeout,
        body: (log, deadline) =>
          Effect.map(follow(check, settings, guard, log, deadline, trail), (judgement) => ({
            status: judgement.status,
            error: judgement.error,
            details: { ...trail, ...judgement.extra }
          })),
        onTimeout: (message) => Effect.succeed({ status: "error" as const, error: message, details: { ...trail } })
      })
    })
  )
