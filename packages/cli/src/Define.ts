/**
 * `defineConfig` for `signalman.config.ts`: the identity at run time, the schema-derived type for the editor, which
 * completes and checks every field of the file as it is typed.
 *
 * This module has no run-time imports: the config loader points `@signalman/cli` at it, so a config file loads
 * even where the package is not installed beside it (a CLI installed globally).
 *
 * @since 0.1.0
 */
import type { ConfigInput } from "./ConfigFile.js"

/**
 * Declares a config: `export default defineConfig({ project: "shop", monitors: [...] })`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const defineConfig = (config: ConfigInput): ConfigInput => config
