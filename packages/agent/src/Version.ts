/**
 * The agent's version, from its package.json (bundled into the built agent, so `dist` needs no package.json beside
 * it): reported in hello and in the probes' User-Agent.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import packageJson from "../package.json" with { type: "json" }

/**
 * @since 0.1.0
 * @category constants
 */
export const version: string = Schema.decodeUnknownSync(Schema.Struct({ version: Schema.String }))(packageJson).version
