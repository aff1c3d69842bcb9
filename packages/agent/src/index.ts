/**
 * The probe agent: it dials out to a Signalman service's `/api/agent/v1/*` with an `sm_agent_` token, takes its
 * region's due checks, runs them with `@signalman/checks` and streams the results back (docs/agents.md). The
 * program is `bin.ts`; these modules are its parts.
 *
 * @since 0.1.0
 */

/**
 * @since 0.1.0
 */
export * as Agent from "./Agent.js"
/**
 * @since 0.1.0
 */
export * as Backoff from "./Backoff.js"
/**
 * @since 0.1.0
 */
export * as ExitCode from "./ExitCode.js"
/**
 * @since 0.1.0
 */
export * as ResultBuffer from "./ResultBuffer.js"
/**
 * @since 0.1.0
 */
export * as Settings from "./Settings.js"
/**
 * @since 0.1.0
 */
export * as Skew from "./Skew.js"
/**
 * @since 0.1.0
 */
export { TOKEN_PREFIX } from "./Token.js"
