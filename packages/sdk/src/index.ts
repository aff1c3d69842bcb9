/**
 * `@signalman/sdk`: the typed client of the Signalman API. `createClient` is the Promise client; `SignalmanClient`
 * (in `Client`) the Effect one. Both are derived from the contract in `@signalman/core`.
 *
 * @since 0.1.0
 */

/**
 * @since 0.1.0
 */
export * as Client from "./Client.js"

/**
 * @since 0.2.0
 */
export { SignalmanClient } from "./Client.js"
/**
 * @since 0.2.0
 */
export { ITERATION_PAGE_SIZE, type Page, PageRequest } from "./PageRequest.js"
/**
 * @since 0.1.0
 */
export * as Promise from "./Promise.js"
/**
 * @since 0.2.0
 */
export { type ClientOptions, createClient, DEFAULT_TIMEOUT_MS, type Fetch, type RetryDelays } from "./Promise.js"
/**
 * @since 0.2.0
 */
export type { Input, Method, RequestOptions, Signalman } from "./Signalman.js"
/**
 * @since 0.2.0
 */
export { type ApiErrorCode, type ClientErrorCode, SignalmanError, type SignalmanErrorFields } from "./SignalmanError.js"

/**
 * @since 0.2.0
 */
export { userAgent, version } from "./Version.js"
