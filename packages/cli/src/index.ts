/**
 * @since 0.1.0
 */

/**
 * @since 0.1.0
 */
export * as Apply from "./Apply.js"

/**
 * @since 0.1.0
 */
export * as Applying from "./Applying.js"

/**
 * @since 0.1.0
 */
export * as ApplySteps from "./ApplySteps.js"

/**
 * @since 0.1.0
 */
export * as Cli from "./Cli.js"
/**
 * @since 0.1.0
 */
export * as ConfigCheck from "./ConfigCheck.js"
/**
 * @since 0.1.0
 */
export type { ConfigInput } from "./ConfigFile.js"
/**
 * @since 0.1.0
 */
export * as ConfigFile from "./ConfigFile.js"
/**
 * @since 0.1.0
 */
export * as ConfigLoader from "./ConfigLoader.js"
/**
 * @since 0.1.0
 */
export * as ConfigSource from "./ConfigSource.js"
/**
 * @since 0.1.0
 */
export * as Credentials from "./Credentials.js"
/**
 * @since 0.1.0
 */
export * as CredentialsFile from "./CredentialsFile.js"
/**
 * @since 0.1.0
 */
export * as Current from "./Current.js"

/**
 * @since 0.1.0
 */
export * as CurrentRead from "./CurrentRead.js"
/**
 * Declares a `signalman.config.ts`: `export default defineConfig({ project: "shop", monitors: [...] })`.
 *
 * @since 0.1.0
 */
export { defineConfig } from "./Define.js"

/**
 * @since 0.1.0
 */
export * as Desired from "./Desired.js"

/**
 * @since 0.1.0
 */
export * as Diff from "./Diff.js"

/**
 * @since 0.1.0
 */
export * as ExitCode from "./ExitCode.js"

/**
 * @since 0.1.0
 */
export * as Import from "./Import.js"

/**
 * @since 0.1.0
 */
export * as Interpolation from "./Interpolation.js"

/**
 * @since 0.1.0
 */
export * as KeyPath from "./KeyPath.js"

/**
 * @since 0.1.0
 */
export * as Login from "./Login.js"

/**
 * @since 0.1.0
 */
export * as Plan from "./Plan.js"

/**
 * @since 0.1.0
 */
export * as PlanCommand from "./PlanCommand.js"
/**
 * @since 0.1.0
 */
export * as PlanJson from "./PlanJson.js"
/**
 * @since 0.1.0
 */
export * as Planning from "./Planning.js"

/**
 * @since 0.1.0
 */
export * as PlanText from "./PlanText.js"

/**
 * @since 0.1.0
 */
export * as Problem from "./Problem.js"

/**
 * @since 0.1.0
 */
export * as Pull from "./Pull.js"

/**
 * @since 0.1.0
 */
export * as PullConfig from "./PullConfig.js"

/**
 * @since 0.1.0
 */
export * as Requests from "./Requests.js"

/**
 * @since 0.1.0
 */
export * as ServiceClient from "./ServiceClient.js"

/**
 * @since 0.1.0
 */
export * as ServiceOptions from "./ServiceOptions.js"

/**
 * @since 0.1.0
 */
export * as Status from "./Status.js"

/**
 * @since 0.1.0
 */
export * as TestRun from "./TestRun.js"

/**
 * @since 0.1.0
 */
export * as Validate from "./Validate.js"

/**
 * @since 0.1.0
 */
export * as Validation from "./Validation.js"

/**
 * @since 0.1.0
 */
export * as Version from "./Version.js"
