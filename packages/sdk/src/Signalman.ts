/**
 * The shape of a Promise client, derived from the contract: a namespace per group (`Layout.ts` says which), a method
 * per endpoint. A method takes, in order:
 *
 * 1. the path's parameter when it has one (`targets.get(id)`), or an object of them when it has several
 *    (`shares.revoke({ id, share_id })`);
 * 2. the input when the endpoint takes one: the JSON body in its wire form (`targets.create({ name, check })`),
 *    the query (`targets.list({ tag, limit })`, values as strings or as their parsed form: numbers, booleans,
 *    `DateTime`), or both in one object where an endpoint takes both (`subscriptions.subscribe({ page, email })`);
 *    optional when every field is;
 * 3. {@link RequestOptions}, optional.
 *
 * It answers the decoded success (core's models: branded ids, `DateTime` instants), `void` for a 204, and a
 * {@link PageRequest} for a paginated list. A misspelt field, a missing required one or a value of the wrong type is
 * a compile error.
 *
 * @since 0.2.0
 */
import type * as Schema from "effect/Schema"
import type { BodySchema, Endpoint, EndpointName, Parts, QuerySchema } from "./Inputs.js"
import type { ClientGroup, MethodNameOf, NamespaceOf } from "./Layout.js"
import type { Page, PageRequest } from "./PageRequest.js"

/**
 * Options of one call, after its input.
 *
 * @since 0.2.0
 * @category models
 */
export interface RequestOptions {
  /**
   * Sent as `Idempotency-Key`: the service answers a repeat of the same write with the first answer (targets
   * create, bulk and duplicate honour it), so the call is also retried after a lost connection, a timeout or a 5xx.
   */
  readonly idempotencyKey?: string | undefined
  /** Aborts the call, retries and waits included; it then rejects with `ABORTED`. */
  readonly signal?: AbortSignal | undefined
  /** Bounds each try of this call (request and answer body), over the client's `timeoutMs`. */
  readonly timeoutMs?: number | undefined
  /** Headers for this call, over the client's (`Signalman-Managed-By`, `X-Request-Id`, ...). */
  readonly headers?: Readonly<Record<string, string>> | undefined
}

type IsUnion<T, U = T> = T extends unknown ? ([U] extends [T] ? false : true) : never

type PathArgs<Path> = [Path] extends [never]
  ? []
  : true extends IsUnion<keyof Path>
    ? [path: { readonly [K in keyof Path]: string }]
    : [id: string]

type BodyInput<S> = [S] extends [never] ? never : S extends { readonly Encoded: infer I } ? I : never

// A query value may be given encoded (as the URL carries it) or decoded (a number, a boolean, a DateTime).
type QueryInput<S> = [S] extends [never]
  ? never
  : S extends Schema.Schema<infer A, infer I, infer _R>
    ? { readonly [K in keyof I]: I[K] | (K extends keyof A ? A[K] : never) }
    : never

type Both<B, Q> = [B] extends [never] ? Q : [Q] extends [never] ? B : B & Q

/**
 * The input of endpoint `E` of group `G`: its body, its query, or both in one object; `never` when it takes none.
 *
 * @since 0.2.0
 * @category models
 */
export type Input<G extends ClientGroup, E extends EndpointName<G>> = Both<
  BodyInput<BodySchema<G, E>>,
  QueryInput<QuerySchema<G, E>>
>

type InputArgs<I> = [I] extends [never] ? [] : Record<never, never> extends I ? [input?: I] : [input: I]

type Answer<Success, Query> =
  Success extends Page<infer Item>
    ? [Query] extends [never]
      ? Promise<Success>
      : "offset" extends keyof Query
        ? PageRequest<Item, Success>
        : Promise<Success>
    : Promise<Success>

/**
 * The method of endpoint `E` of group `G`.
 *
 * @since 0.2.0
 * @category models
 */
export type Method<G extends ClientGroup, E extends EndpointName<G>> = (
  ...args: [...PathArgs<Parts<Endpoint<G, E>>["path"]>, ...InputArgs<Input<G, E>>, options?: RequestOptions]
) => Answer<Parts<Endpoint<G, E>>["success"], Parts<Endpoint<G, E>>["query"]>

type TOP = "(top level)"

type Entries = {
  [G in ClientGroup]: {
    [E in EndpointName<G>]: {
      readonly namespace: [NamespaceOf<G>] extends [never] ? TOP : NamespaceOf<G>
      readonly name: MethodNameOf<G, E>
      readonly method: Method<G, E>
    }
  }[EndpointName<G>]
}[ClientGroup]

type Members<N> = { readonly [X in Extract<Entries, { readonly namespace: N }> as X["name"]]: X["method"] }

/**
 * A Promise client: the operations' methods (`healthz`, `readyz`) at the top, and a namespace per resource.
 *
 * @since 0.2.0
 * @category models
 */
export type Signalman = Members<TOP> & { readonly [N in Exclude<Entries["namespace"], TOP>]: Members<N> }

// Two endpoints placed on one name would make one of them unreachable; `Layout.ts` must keep names apart.
type ClashesIn<N, X = Extract<Entries, { readonly namespace: N }>> = {
  [M in X extends { readonly name: infer Name extends string } ? Name : never]: true extends IsUnion<
    Extract<X, { readonly name: M }>
  >
    ? `${N & string}.${M}: two endpoints share this name`
    : never
}
type Clashes = { [N in Entries["namespace"]]: ClashesIn<N>[keyof ClashesIn<N>] }[Entries["namespace"]]

const namesAreDistinct: Record<Clashes, "see Layout.ts"> = {}
void namesAreDistinct
