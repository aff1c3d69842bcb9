/**
 * The package's version, as its `package.json` says, for the `User-Agent` every client sends.
 *
 * @since 0.2.0
 */
import pkg from "../package.json" with { type: "json" }

/**
 * The version of `@signalman/sdk`.
 *
 * @since 0.2.0
 * @category constants
 */
export const version: string = pkg.version

/**
 * What the SDK's clients send as `User-Agent` unless told otherwise: `signalman-sdk/<version>`.
 *
 * @since 0.2.0
 * @category constants
 */
export const userAgent = `signalman-sdk/${version}`
