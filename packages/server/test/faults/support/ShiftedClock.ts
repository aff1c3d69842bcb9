/**
 * The environment that starts a process with its clock off by a given amount (the preload `ShiftedClock.mjs`
 * beside this file), for ServerProcess and AgentProcess alike: both pass the test's env to the child.
 */
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const preload = path.join(path.dirname(fileURLToPath(import.meta.url)), "ShiftedClock.mjs")

/** The env of a process whose `Date` reads `offsetMs` off the machine's clock (positive: ahead). */
export const env = (offsetMs: number): Record<string, string> => ({
  NODE_OPTIONS: `--import ${preload}`,
  SIGNALMAN_TEST_CLOCK_OFFSET_MS: String(offsetMs)
})
