/**
 * The typed client of the Signalman API for Effect programs, derived from the contract in `@signalman/core` with
 * `HttpApiClient`: every endpoint is a method taking its typed request (`{ path, urlParams, payload }` in their
 * decoded form) and answering its typed success, failing with the `ApiError` its status maps to. It retries
 * nothing by itself: compose `Effect.retry` with the schedule the program wants. Programs without Effect use the
 * Promise client (`createClient`).
 *
 * @since 0.1.0
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import type * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiClient from "@effect/platform/HttpApiClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { SignalmanApi } from "@signalman/core/api/Api"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Version from "./Version.js"

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
  /** Sent as `User-Agent`; default `signalman-sdk/<version>`. */
  readonly userAgent?: string | undefined
}

const authorize = (options: ClientOptions) => (request: HttpClientRequest.HttpClientRequest) => {
  let out = HttpClientRequest.setHeader(request, "user-agent", options.userAgent ?? Version.userAgent)
  if (options.token !== undefined) {
    const token = Redacted.isRedacted(options.token) ? Redacted.value(options.token) : options.token
    out = HttpClientRequest.bearerToken(out, token)
  }
  if (options.org !== undefined) out = HttpClientRequest.setHeader(out, "x-signalman-org", options.org)
  return out
}

type Api = typeof SignalmanApi

type Shape = HttpApiClient.Client<
  Api extends HttpApi.HttpApi<infer _Id, infer Groups, infer _E, infer _R> ? Groups : never,
  Api extends HttpApi.HttpApi<infer _Id, infer _Groups, infer E, infer _R> ? E : never,
  never
>

/**
 * The client: a group per namespace of methods, each answering an `Effect`. An interface over the contract's
 * client type, so declarations that mention it name it rather than spell it out.
 *
 * @since 0.1.0
 * @category models
 */
export interface Client extends Shape {}

/**
 * The client, over whatever `HttpClient` the environment provides.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: ClientOptions): Effect.Effect<Client, never, HttpClient.HttpClient> =>
  HttpApiClient.make(SignalmanApi, {
    baseUrl: options.baseUrl,
    transformClient: HttpClient.mapRequest(authorize(options))
  })

/**
 * The client as a service, for programs built with Effect.
 *
 * @since 0.1.0
 * @category services
 */
export class SignalmanClient extends Context.Tag("Signalman/Client")<SignalmanClient, Client>() {
  /**
   * The client over the platform's `fetch`.
   *
   * @since 0.1.0
   * @category layers
   */
  static readonly layer = (options: ClientOptions): Layer.Layer<SignalmanClient> =>
    Layer.effect(SignalmanClient, make(options)).pipe(Layer.provide(FetchHttpClient.layer))
}
