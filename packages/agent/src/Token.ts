/**
 * The agent token's form (auth-and-limits.md, Credentials): agent tokens are not API tokens, and the prefix tells
 * them apart at a glance and to secret scanners.
 *
 * @since 0.1.0
 */

/**
 * Prefix of every agent token.
 *
 * @since 0.1.0
 * @category constants
 */
export const TOKEN_PREFIX = "sm_agent_"
