import { defineConfig } from "vitest/config"

// `pnpm test:faults`: the fault suite and the split deployment's load test (issue 20, docs/faults.md). Each file
// starts a deployment of its own (api, worker and agent processes on a PostgreSQL of its own or a fresh database of
// the machine's), puts it under load, injects one fault and counts what was stored: nothing lost, nothing doubled.
// The files are minutes of wall clock each and time real processes, so they run one at a time.
export default defineConfig({
  test: {
    name: "faults",
    include: ["packages/server/test/faults/**/*.test.ts"],
    reporters: ["default", ["json", { outputFile: "test-artifacts/vitest-faults.json" }], "./vitest.reporter.ts"],
    globalSetup: ["test-support/Bundles.ts", "packages/server/test/support/GlobalSetup.ts"],
    env: { SIGNALMAN_TEST_DATABASE: "postgres" },
    pool: "forks",
    fileParallelism: false,
    testTimeout: 600_000,
    hookTimeout: 180_000
  }
})
