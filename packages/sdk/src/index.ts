/**
 * @since 0.1.0
 */

/**
 * @since 0.1.0
 */
export * as Client from "./Client.js"

/**
 * @since 0.1.0
 */
export * as Promise from "./Promise.js"
