/**
 * The CLI's version, as in its package.json (a test holds the two together).
 *
 * @since 0.1.0
 */

/**
 * @since 0.1.0
 * @category constants
 */
export const version = "0.1.0"
