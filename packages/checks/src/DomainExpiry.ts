/**
 * The domain_expiry check: find the RDAP server of the domain's TLD in the IANA bootstrap registry (fetched on the
 * first lookup and kept for the life of the process), read the domain's `expiration` event and its registrar, and
 * judge the days left against the warning windows. RDAP servers are public registries, so the internal-address
 * guard does not apply here.
 *
 * @since 0.1.0
 */
import { Buffer } from "node:buffer"
import { domainToASCII } from "node:url"
import type { ProbeOutcome } from "@signalman/core/CheckResult"
import type { DomainExpiryCheck } from "@signalman/core/CheckSpec"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as SynchronizedRef from "effect/SynchronizedRef"
import { Agent, interceptors, request } from "undici"
import { ProbeSettings, regionHeader } from "./ProbeSettings.js"

/**
 * The IANA RDAP bootstrap file for domains (`dns.json`, RFC 9224): each service lists domain suffixes and the
 * base URLs of the RDAP server that answers for them.
 *
 * @since 0.1.0
 * @category models
 */
export const Bootstrap = Schema.Struct({
  services: Schema.Array(Schema.Tuple([Schema.Array(Schema.String), Schema.Array(Schema.String)], Schema.Unknown))
}).annotations({ identifier: "RdapBootstrap" })

/**
 * The decoded form of {@link Bootstrap}.
 *
 * @since 0.1.0
 * @category models
 */
export type Bootstrap = typeof Bootstrap.Type

/**
 * The base URL (ending in `/`) of the RDAP server for a domain: the service of its longest matching suffix,
 * preferring an https URL. Undefined when the bootstrap names no server for it.
 *
 * @since 0.1.0
 * @category lookups
 */
export const findBaseUrl = (bootstrap: Bootstrap, domain: string): string | undefined => {
  const bases = new Map<string, ReadonlyArray<string>>()
  for (const [suffixes, urls] of bootstrap.services) {
    for (const suffix of suffixes) bases.set(suffix.toLowerCase().replace(/\.$/, ""), urls)
  }
  const labels = domain.split(".")
  // Longest suffix first: the whole name, then one label shorter each time, down to the TLD.
  for (let start = 0; start < labels.length; start++) {
    const urls = bases.get(labels.slice(start).join("."))
    if (urls === undefined || urls.length === 0) continue
    const url = urls.find((candidate) => candidate.startsWith("https://")) ?? urls[0]!
    return url.endsWith("/") ? url : `${url}/`
  }
  return undefined
}

const Event = Schema.Struct({ eventAction: Schema.String, eventDate: Schema.Date })

// vCard 4.0 in jCard form (RFC 7095): ["fn", {params}, "text", "Example Registrar, Inc."].
const FnProperty = Schema.Tuple([Schema.Literal("fn"), Schema.Unknown, Schema.Unknown, Schema.String], Schema.Unknown)

const Entity = Schema.Struct({
  roles: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  vcardArray: Schema.optional(Schema.Tuple(Schema.Literal("vcard"), Schema.Array(Schema.Unknown)))
})

// Events and entities are decoded one by one, so one malformed entry of a registry's answer costs that entry only.
const DomainResponse = Schema.parseJson(
  Schema.Struct({
    events: Schema.optionalWith(Schema.Array(Schema.Unknown), { default: () => [] }),
    entities: Schema.optionalWith(Schema.Array(Schema.Unknown), { default: () => [] })
  })
)

/**
 * What the registry says about a domain: when it expires (undefined when it publishes no expiration event) and
 * who its registrar is (null when it names none).
 *
 * @since 0.1.0
 * @category models
 */
export interface DomainRecord {
  readonly expiration: Date | undefined
  readonly registrar: string | null
  /** The RDAP server that answered, for messages. */
  readonly server: string
}

/**
 * A lookup that found no record: no RDAP server for the TLD, an unavailable bootstrap, a 404, a timeout, an
 * answer that is not RDAP. `message` is the check's error text.
 *
 * @since 0.1.0
 * @category errors
 */
export class RdapError extends Data.TaggedError("RdapError")<{ readonly message: string }> {}

/**
 * RDAP lookups, with the bootstrap registry and the per-TLD in-flight cap shared by every check of the process.
 *
 * @since 0.1.0
 * @category services
 */
export class Rdap extends Context.Tag("Signalman/Rdap")<
  Rdap,
  {
    /** The record of a domain already normalised by {@link normaliseDomain}. */
    readonly lookup: (domain: string) => Effect.Effect<DomainRecord, RdapError>
  }
>() {}

/**
 * A domain as RDAP is asked about it: trimmed, lower-case, no trailing dot, Unicode labels as xn--, at least two
 * labels. Left says why it is refused.
 *
 * @since 0.1.0
 * @category lookups
 */
export const normaliseDomain = (domain: string): Either.Either<string, string> => {
  const text = domain.trim().replace(/\.$/, "")
  const ascii = /^[A-Za-z0-9.-]+$/.test(text) ? text.toLowerCase() : domainToASCII(text)
  const labels = ascii.split(".")
  if (ascii === "" || labels.some((label) => !/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(label))) {
    return Either.left(`"${domain.trim()}" is not a domain name`)
  }
  return labels.length < 2 ? Either.left(`"${text}" is a TLD; name a registered domain`) : Either.right(ascii)
}

/**
 * How long the RDAP layer waits: for each HTTP request (connect to last byte), and for a whole lookup including
 * the wait for a per-TLD slot and the bootstrap.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly requestTimeout: Duration.DurationInput
  readonly lookupTimeout: Duration.DurationInput
}

// RDAP servers are slow next to a website; 10 s a request and a minute a lookup leave room for a queue per TLD
// while keeping a daily check from hanging on a dead registry.
const defaults: Options = { requestTimeout: "10 seconds", lookupTimeout: "60 seconds" }

// A domain record is a few kilobytes and the bootstrap under 100 KB; more is not RDAP.
const maxBody = 4 * 1024 * 1024

const describeCause = (cause: unknown): string => {
  if (cause instanceof Error) {
    const code = "code" in cause && typeof cause.code === "string" ? cause.code : undefined
    return code === undefined ? cause.message : `${code} (${cause.message})`
  }
  return String(cause)
}

const hostOf = (url: string): string => {
  try {
    return new URL(url).host
  } catch {
    return url
  }
}

/**
 * The RDAP service; the bootstrap is fetched once on first use and kept, unless the fetch fails.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerWith = (options: Partial<Options> = {}): Layer.Layer<Rdap, never, ProbeSettings> =>
  Layer.scoped(
    Rdap,
    Effect.gen(function* () {
      const settings = yield* ProbeSettings
      const { lookupTimeout, requestTimeout } = { ...defaults, ...options }
      const requestMs = Duration.toMillis(Duration.decode(requestTimeout))
      const scope = yield* Effect.scope
      const agent = yield* Effect.acquireRelease(
        Effect.sync(() => new Agent({ connect: { timeout: requestMs } })),
        // Closing aborts requests still in flight, which only a scope already ending can have.
        (agent) => Effect.ignore(Effect.tryPromise(() => agent.destroy()))
      )
      // RDAP answers may redirect (RFC 7480 §5.2), for instance from a registry to a registrar's server.
      const dispatcher = agent.compose(interceptors.redirect({ maxRedirections: 3 }))

      const get = (url: string, accept: string): Effect.Effect<{ status: number; text: string }, RdapError> =>
        Effect.tryPromise({
          try: async (signal) => {
            const response = await request(url, {
              method: "GET",
              headers: { accept, "user-agent": settings.userAgent, [regionHeader]: settings.region },
              signal,
              dispatcher
            })
            if (response.statusCode !== 200) {
              await response.body.dump()
              return { status: response.statusCode, text: "" }
            }
            const chunks: Array<Buffer> = []
            let size = 0
            for await (const chunk of response.body) {
              const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk))
              size += bytes.length
              if (size > maxBody) throw new Error(`the answer is larger than ${maxBody} bytes`)
              chunks.push(bytes)
            }
            return { status: response.statusCode, text: Buffer.concat(chunks).toString("utf8") }
          },
          catch: (cause) => new RdapError({ message: `rdap: ${hostOf(url)}: ${describeCause(cause)}` })
        }).pipe(
          Effect.timeoutFail({
            duration: requestTimeout,
            onTimeout: () =>
              new RdapError({
                message: `rdap: ${hostOf(url)} did not answer within ${Duration.format(Duration.decode(requestTimeout))}`
              })
          })
        )

      const fetchBootstrap = Effect.gen(function* () {
        const url = settings.rdapBootstrapUrl
        const reply = yield* get(url, "application/json")
        if (reply.status !== 200) {
          return yield* new RdapError({ message: `rdap: the bootstrap registry ${url} answered ${reply.status}` })
        }
        return yield* Schema.decodeUnknown(Schema.parseJson(Bootstrap))(reply.text).pipe(
          Effect.mapError(
            () => new RdapError({ message: `rdap: the bootstrap registry ${url} is not RDAP bootstrap JSON` })
          )
        )
      })

      // One slot: empty, or the shared fetch in progress or done. A failure empties it again before it is
      // reported, so lookups that arrive later start a fresh fetch while those already waiting share the failure.
      const slot = yield* SynchronizedRef.make(Option.none<Deferred.Deferred<Bootstrap, RdapError>>())
      const bootstrap: Effect.Effect<Bootstrap, RdapError> = Effect.flatten(
        SynchronizedRef.modifyEffect(slot, (current) =>
          Option.match(current, {
            onSome: (shared) => Effect.succeed([Deferred.await(shared), current] as const),
            onNone: () =>
              Effect.gen(function* () {
                const shared = yield* Deferred.make<Bootstrap, RdapError>()
                // Forked into the layer's scope: a lookup that times out must not cancel the fetch others await.
                yield* fetchBootstrap.pipe(
                  Effect.onExit((exit) =>
                    Exit.isFailure(exit) ? SynchronizedRef.set(slot, Option.none()) : Effect.void
                  ),
                  Effect.exit,
                  Effect.flatMap((exit) => Deferred.done(shared, exit)),
                  Effect.forkIn(scope)
                )
                return [Deferred.await(shared), Option.some(shared)] as const
              })
          })
        )
      )

      // One semaphore per TLD, made on first use; the number of TLDs bounds the map.
      const semaphores = new Map<string, Effect.Semaphore>()
      const slotFor = (tld: string): Effect.Semaphore => {
        const existing = semaphores.get(tld)
        if (existing !== undefined) return existing
        const made = Effect.unsafeMakeSemaphore(Math.max(1, settings.rdapMaxInflight))
        semaphores.set(tld, made)
        return made
      }

      const read = (text: string, server: string): Effect.Effect<DomainRecord, RdapError> =>
        Effect.map(
          Effect.mapError(
            Schema.decodeUnknown(DomainResponse)(text),
            () => new RdapError({ message: `rdap: ${server} answered with something that is not RDAP JSON` })
          ),
          (body): DomainRecord => {
            const expiration = body.events
              .flatMap((event) => Option.toArray(Schema.decodeUnknownOption(Event)(event)))
              .find((event) => event.eventAction.toLowerCase() === "expiration")?.eventDate
            const registrar = body.entities
              .flatMap((entity) => Option.toArray(Schema.decodeUnknownOption(Entity)(entity)))
              .find((entity) => entity.roles.includes("registrar"))
            const fn = (registrar?.vcardArray?.[1] ?? [])
              .flatMap((property) => Option.toArray(Schema.decodeUnknownOption(FnProperty)(property)))
              .map((property) => property[3].trim())
              .find((name) => name !== "")
            return { expiration, registrar: fn ?? null, server }
          }
        )

      const lookup = (domain: string): Effect.Effect<DomainRecord, RdapError> =>
        Effect.gen(function* () {
          const registry = yield* bootstrap
          const base = findBaseUrl(registry, domain)
          const tld = domain.slice(domain.lastIndexOf(".") + 1)
          if (base === undefined) {
            return yield* new RdapError({ message: `rdap: the bootstrap registry names no RDAP server for .${tld}` })
          }
          const server = hostOf(base)
          const reply = yield* slotFor(tld).withPermits(1)(
            get(`${base}domain/${encodeURIComponent(domain)}`, "application/rdap+json, application/json")
          )
          if (reply.status === 404) {
            return yield* new RdapError({
              message: `rdap: ${server} has no record of ${domain} (404): it is not registered, or not a registered domain`
            })
          }
          if (reply.status === 429) return yield* new RdapError({ message: `rdap: ${server} is rate-limiting (429)` })
          if (reply.status !== 200) return yield* new RdapError({ message: `rdap: ${server} answered ${reply.status}` })
          return yield* read(reply.text, server)
        }).pipe(
          Effect.timeoutFail({
            duration: lookupTimeout,
            onTimeout: () =>
              new RdapError({
                message: `rdap: no answer for ${domain} within ${Duration.format(Duration.decode(lookupTimeout))}`
              })
          })
        )

      return { lookup }
    })
  )

/**
 * {@link layerWith} with the default timeouts: 10 s a request, 60 s a lookup.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<Rdap, never, ProbeSettings> = layerWith()

const dayMs = 24 * 60 * 60 * 1000

/**
 * Run a domain_expiry check: down under `critical_days`, degraded under `warn_days`, else up; error when the
 * registry gives no expiry.
 *
 * @since 0.1.0
 * @category probes
 */
export const probe = (spec: DomainExpiryCheck): Effect.Effect<ProbeOutcome, never, Rdap> =>
  Effect.gen(function* () {
    const rdap = yield* Rdap
    const started = yield* Clock.currentTimeMillis
    const finish = (
      status: ProbeOutcome["status"],
      error: string | null,
      details: Record<string, unknown> | null
    ): Effect.Effect<ProbeOutcome> =>
      Effect.map(Clock.currentTimeMillis, (now) => ({
        status,
        duration_ms: now - started,
        error,
        details,
        phases: null
      }))

    const domain = normaliseDomain(spec.domain)
    if (Either.isLeft(domain)) return yield* finish("error", `rdap: ${domain.left}`, null)
    const found = yield* Effect.either(rdap.lookup(domain.right))
    if (Either.isLeft(found)) return yield* finish("error", found.left.message, null)
    const { expiration, registrar, server } = found.right
    if (expiration === undefined) {
      return yield* finish("error", `rdap: ${server} publishes no expiration date for ${domain.right}`, null)
    }
    const now = yield* Clock.currentTimeMillis
    const daysRemaining = Math.floor((expiration.getTime() - now) / dayMs)
    const details = {
      domain: domain.right,
      days_remaining: daysRemaining,
      expiration_date: expiration.toISOString(),
      registrar
    }
    const status = daysRemaining < spec.critical_days ? "down" : daysRemaining < spec.warn_days ? "degraded" : "up"
    return yield* finish(status, status === "up" ? null : JSON.stringify(details), details)
  })
