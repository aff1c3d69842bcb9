/**
 * Skipping a test for want of something on the machine, out loud: the reason goes into the test's result (shown
 * beside it) and into `task.meta.skipReason`, from which the end of `pnpm test` (vitest.reporter.ts) and CI's
 * summary (.ci/run) print one line per reason. A probe whose real tests cannot run here must not pass quietly.
 */
import type { TestContext } from "vitest"

declare module "vitest" {
  interface TaskMeta {
    /** Why this test was skipped on this machine, as a whole line: `ping probe tests skipped: ...`. */
    skipReason?: string
  }
}

/** In a `beforeEach` or at the start of a test: skip it unless `available`, saying why. */
export const skipUnless = (context: TestContext, available: boolean, reason: string): void => {
  if (available) return
  context.task.meta.skipReason = reason
  context.skip(reason)
}
