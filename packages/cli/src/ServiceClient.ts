/**
 * The SDK's clients as the CLI uses them: the resolved credentials, and `User-Agent: signalman-cli/<version>` on
 * every request (the SDK's `userAgent`), by which the service records the CLI's writes as `write_source: iac`.
 * `status` and `login` use the Effect client; the commands that read and write resources use the Promise client,
 * for its retries (429 and 503 honouring `Retry-After`), its `Idempotency-Key` and its per-call headers.
 *
 * @since 0.1.0
 */
import * as Client from "@signalman/sdk/Client"
import type { PageRequest } from "@signalman/sdk/PageRequest"
import { createClient } from "@signalman/sdk/Promise"
import type { Signalman } from "@signalman/sdk/Signalman"
import { SignalmanError } from "@signalman/sdk/SignalmanError"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import type { Credentials } from "./Credentials.js"
import { version } from "./Version.js"

/**
 * @since 0.1.0
 * @category constants
 */
export const userAgent = `signalman-cli/${version}`

/**
 * The Effect client for these credentials.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (credentials: Credentials): Layer.Layer<Client.SignalmanClient> =>
  Client.SignalmanClient.layer({ baseUrl: credentials.url, token: credentials.token, org: credentials.org, userAgent })

/**
 * The Promise client for these credentials.
 *
 * @since 0.1.0
 * @category constructors
 */
export const connect = (credentials: Credentials): Signalman =>
  createClient({
    baseUrl: credentials.url,
    token: credentials.token === undefined ? undefined : Redacted.value(credentials.token),
    org: credentials.org,
    userAgent
  })

// The SDK rejects with a SignalmanError; anything else was thrown by the CLI's own code around the call.
const asError = (error: unknown): SignalmanError =>
  error instanceof SignalmanError
    ? error
    : new SignalmanError(
        {
          status: 0,
          code: "CLI_ERROR",
          message: error instanceof Error ? error.message : String(error),
          field: null,
          details: {},
          traceId: null
        },
        { cause: error }
      )

/**
 * One call of the Promise client as an Effect; interrupting it aborts the request.
 *
 * @since 0.1.0
 * @category calls
 */
export const call = <A>(f: (signal: AbortSignal) => PromiseLike<A>): Effect.Effect<A, SignalmanError> =>
  Effect.tryPromise({ try: (signal) => Promise.resolve(f(signal)), catch: asError })

/**
 * Every item of a paginated list, page after page.
 *
 * @since 0.1.0
 * @category calls
 */
export const all = <A>(request: PageRequest<A>): Effect.Effect<ReadonlyArray<A>, SignalmanError> =>
  call(async () => {
    const items: Array<A> = []
    for await (const item of request) items.push(item)
    return items
  })

/**
 * A failure in one line: the service's message, its code and the field it names.
 *
 * @since 0.1.0
 * @category formatting
 */
export const describe = (error: SignalmanError): string =>
  `${error.message} (${error.code}${error.field === null ? "" : `, ${error.field}`})`
