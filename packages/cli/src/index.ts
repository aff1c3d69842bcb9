/**
 * @since 0.1.0
 */

/**
 * @since 0.1.0
 */
export * as Cli from "./Cli.js"

/**
 * @since 0.1.0
 */
export * as Status from "./Status.js"
