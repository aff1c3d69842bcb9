/**
 * The remote probe agent: it will connect to `/api/agent/*` with an `sm_agent_` token, receive the jobs of its
 * region, run them with `@signalman/checks` and stream the results back. The agent protocol arrives with the
 * regions work; until then this package holds only what is already fixed by the specification.
 *
 * @since 0.1.0
 */

/**
 * Prefix of every agent token (auth-and-limits.md, Credentials): agent tokens are not API tokens.
 *
 * @since 0.1.0
 * @category constants
 */
export const TOKEN_PREFIX = "sm_agent_"
