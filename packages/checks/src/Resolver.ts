/**
 * Name resolution for the probes that dial a host (http, tcp, tls_cert, ping), as a service so tests can answer
 * with chosen addresses (a name that resolves public first and private next, an IPv6-only name).
 *
 * @since 0.1.0
 */

import * as dns from "node:dns"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/**
 * @since 0.1.0
 * @category models
 */
export interface ResolvedAddress {
  readonly address: string
  readonly family: 4 | 6
}

/**
 * Which families to ask for: `any` both (IPv6 first, as happy eyeballs prefers it), otherwise only one.
 *
 * @since 0.1.0
 * @category models
 */
export type Family = "any" | "ipv4" | "ipv6"

/**
 * A name that gave no usable address. `message` is the check's error text (`dns: no IPv4 address`).
 *
 * @since 0.1.0
 * @category errors
 */
export class ResolveError extends Data.TaggedError("ResolveError")<{
  readonly host: string
  readonly message: string
}> {}

/**
 * @since 0.1.0
 * @category services
 */
export class Resolver extends Context.Tag("Signalman/Resolver")<
  Resolver,
  {
    readonly lookup: (host: string, family: Family) => Effect.Effect<ReadonlyArray<ResolvedAddress>, ResolveError>
  }
>() {}

const noAddress = (host: string, family: Family): ResolveError =>
  new ResolveError({
    host,
    message:
      family === "ipv4"
        ? "dns: no IPv4 address"
        : family === "ipv6"
          ? "dns: no IPv6 address"
          : `dns: no address for ${host}`
  })

/**
 * The operating system's resolver (`getaddrinfo`, as every other program on the host resolves).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<Resolver> = Layer.succeed(Resolver, {
  lookup: (host, family) =>
    Effect.tryPromise({
      try: () =>
        dns.promises.lookup(host, {
          all: true,
          family: family === "ipv4" ? 4 : family === "ipv6" ? 6 : 0,
          order: "ipv6first"
        }),
      catch: (cause) => {
        const code = (cause as NodeJS.ErrnoException).code
        if (code === "ENOTFOUND" || code === "ENODATA" || code === "EAI_NODATA" || code === "EAI_NONAME") {
          return noAddress(host, family)
        }
        return new ResolveError({ host, message: `dns: ${code ?? "lookup failed"} for ${host}` })
      }
    }).pipe(
      Effect.map((answers) =>
        answers
          .filter((a) => a.family === 4 || a.family === 6)
          .map((a): ResolvedAddress => ({ address: a.address, family: a.family === 4 ? 4 : 6 }))
      ),
      Effect.filterOrFail(
        (answers) => answers.length > 0,
        () => noAddress(host, family)
      )
    )
})
