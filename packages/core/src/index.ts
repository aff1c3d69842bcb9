/**
 * @since 0.1.0
 */

/**
 * @since 0.1.0
 */
export * as ApiError from "./ApiError.js"
/**
 * @since 0.1.0
 */
export * as CheckResult from "./CheckResult.js"
/**
 * @since 0.1.0
 */
export * as CheckSpec from "./CheckSpec.js"
/**
 * @since 0.1.0
 */
export * as DecodeFailure from "./DecodeFailure.js"
/**
 * @since 0.1.0
 */
export * as Pagination from "./Pagination.js"
/**
 * @since 0.1.0
 */
export * as RequestBody from "./RequestBody.js"
/**
 * @since 0.1.0
 */
export * as Target from "./Target.js"
/**
 * @since 0.1.0
 */
export * as TargetRules from "./TargetRules.js"
/**
 * @since 0.1.0
 */
export * as Variable from "./Variable.js"
/**
 * @since 0.1.0
 */
export * as Variables from "./Variables.js"
