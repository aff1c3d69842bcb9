/**
 * The typed client of the Signalman API, derived from the contract in `@signalman/core`: every endpoint is a
 * method taking its typed request and answering its typed success, failing with the `ApiError` its status maps to.
 *
 * @since 0.1.0
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpApiClient from "@effect/platform/HttpApiClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { SignalmanApi } from "@signalman/core/api/Api"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"

/**
 * Where the service is and who is calling.
 *
 * @since 0.1.0
 * @category models
 */
export interface ClientOptions {
  /** The service origin, for example `https://signalman.example.com`. */
  readonly baseUrl: string
  /** An API token (`sm_live_...`), sent as `Authorization: Bearer`. */
  readonly token?: string | Redacted.Redacted<string> | undefined
  /** The org slug sent as `X-Signalman-Org`, for tokens not bound to one org. */
  readonly org?: string | undefined
}

const authorize = (options: ClientOptions) => (request: HttpClientRequest.HttpClientRequest) => {
  let out = request
  if (options.token !== undefined) {
    const token = Redacted.isRedacted(options.token) ? Redacted.value(options.token) : options.token
    out = HttpClientRequest.bearerToken(out, token)
  }
  if (options.org !== undefined) out = HttpClientRequest.setHeader(out, "x-signalman-org", options.org)
  return out
}

/**
 * The client, over whatever `HttpClient` the environment provides.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: ClientOptions) =>
  HttpApiClient.make(SignalmanApi, {
    baseUrl: options.baseUrl,
    transformClient: HttpClient.mapRequest(authorize(options))
  })

/**
 * @since 0.1.0
 * @category models
 */
export type Client = Effect.Effect.Success<ReturnType<typeof make>>

/**
 * The client as a service, for programs built with Effect.
 *
 * @since 0.1.0
 * @category services
 */
export class SignalmanClient extends Effect.Tag("Signalman/Client")<SignalmanClient, Client>() {
  /**
   * The client over the platform's `fetch`.
   *
   * @since 0.1.0
   * @category layers
   */
  static readonly layer = (options: ClientOptions): Layer.Layer<SignalmanClient> =>
    Layer.effect(SignalmanClient, make(options)).pipe(Layer.provide(FetchHttpClient.layer))
}
