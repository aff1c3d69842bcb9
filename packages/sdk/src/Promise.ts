/**
 * The client for programs that do not use Effect: the same methods, answering Promises. A failed call rejects
 * with the `ApiError` of its status (its `code`, `field` and `trace_id` as the service sent them).
 *
 * ```ts
 * import { createClient } from "@signalman/sdk/Promise"
 * const signalman = createClient({ baseUrl: "http://localhost:8080", token: process.env.SIGNALMAN_TOKEN })
 * await signalman.healthz()
 * ```
 *
 * @since 0.1.0
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Client from "./Client.js"

/**
 * A client whose methods answer Promises.
 *
 * @since 0.1.0
 * @category models
 */
export type PromiseClient<C> = {
  readonly [K in keyof C]: C[K] extends (...args: infer A) => Effect.Effect<infer R, infer _E, never>
    ? (...args: A) => Promise<Exclude<R, readonly [unknown, HttpClientResponse.HttpClientResponse]>>
    : C[K] extends object
      ? PromiseClient<C[K]>
      : C[K]
}

const run = <A, E>(effect: Effect.Effect<A, E>): Promise<A> =>
  Effect.runPromise(Effect.either(effect)).then((result) =>
    Either.isRight(result) ? result.right : Promise.reject(result.left)
  )

const wrap = (node: unknown): unknown => {
  if (typeof node === "function") {
    return (...args: ReadonlyArray<unknown>) => {
      // `withResponse` answers a tuple in the Effect client; the Promise client always answers the value.
      const [request, ...rest] = args
      const plain =
        typeof request === "object" && request !== null && "withResponse" in request
          ? { ...request, withResponse: false }
          : request
      const out: unknown = node(...(args.length === 0 ? [] : [plain, ...rest]))
      // The client's methods need nothing: its HttpClient was provided when it was made.
      return Effect.isEffect(out) ? run(out as Effect.Effect<unknown, unknown, never>) : out
    }
  }
  if (typeof node === "object" && node !== null) {
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, wrap(value)]))
  }
  return node
}

/**
 * A Promise client over the platform's `fetch`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const createClient = (options: Client.ClientOptions): PromiseClient<Client.Client> => {
  const client = Effect.runSync(Client.make(options).pipe(Effect.provide(FetchHttpClient.layer)))
  // `wrap` keeps the shape of the client and turns each Effect-returning method into a Promise-returning one.
  return wrap(client) as PromiseClient<Client.Client>
}
