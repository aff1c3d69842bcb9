/**
 * How the agent's process ends, one code per reason, so a supervisor (systemd, a container runtime) and an operator
 * can tell a bad setting from a refused token without reading logs.
 *
 * @since 0.1.0
 */

/**
 * Stopped cleanly: `--help`, `--version`, or a drain that delivered everything.
 *
 * @since 0.1.0
 * @category constants
 */
export const OK = 0

/**
 * An unexpected failure (a bug); the reason is logged.
 *
 * @since 0.1.0
 * @category constants
 */
export const FAILED = 1

/**
 * A bad flag or setting; the one line on stderr names it.
 *
 * @since 0.1.0
 * @category constants
 */
export const BAD_SETTINGS = 2

/**
 * The server refused the agent token (401 on hello or on the results, or the stream closed with 4401): restarting
 * cannot help until an operator mints a new token.
 *
 * @since 0.1.0
 * @category constants
 */
export const TOKEN_REFUSED = 3

/**
 * A drain ended with results it could not deliver (the service stayed unreachable until the drain timeout).
 *
 * @since 0.1.0
 * @category constants
 */
export const UNDELIVERED = 4

/**
 * A second SIGTERM or SIGINT during a drain: the process exits at once with 128 + the signal's number, as a shell
 * reports a process killed by it.
 *
 * @since 0.1.0
 * @category constants
 */
export const bySignal = (signal: "SIGTERM" | "SIGINT"): number => 128 + (signal === "SIGTERM" ? 15 : 2)
