/**
 * The end of a test run names what was skipped for want of something on this machine, one line per reason, so
 * a run without, say, the system `ping` cannot read as if the ping probe had been tested. Tests give the reason
 * in `task.meta.skipReason` (see packages/checks/test/support/Skip.ts); CI prints the same lines from the JSON
 * report (.ci/run).
 */
import type { Reporter, TestModule } from "vitest/node"

export default class SkipReasons implements Reporter {
  private readonly counts = new Map<string, number>()

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const counts = this.counts
    counts.clear()
    for (const module of testModules) {
      for (const test of module.children.allTests("skipped")) {
        const meta = test.meta()
        // The meta crossed from a worker as JSON: only a string is a reason.
        const reason: unknown = "skipReason" in meta ? meta.skipReason : undefined
        if (typeof reason === "string") counts.set(reason, (counts.get(reason) ?? 0) + 1)
      }
    }
  }

  // Printed here rather than at the end of the run's modules: the default reporter writes its summary in
  // onFinished, and these lines belong after it.
  onFinished(): void {
    for (const [reason, count] of this.counts) {
      process.stdout.write(`${reason} [${count} ${count === 1 ? "test" : "tests"}]\n`)
    }
  }
}
