import { defineConfig } from "vitest/config"

// Three projects: the pure and unit tests, then the end-to-end suite twice, once per database. Each e2e test
// file gets a fresh database (see packages/server/test/support/TestDatabase.ts).
const e2e = "packages/server/test/e2e/**/*.test.ts"
// Outages and drains need a database the test can cut off from the server: PostgreSQL behind a proxy.
const e2ePostgresOnly = "packages/server/test/e2e-postgres/**/*.test.ts"
// Migrates one database per run that every server of the project copies (see DatabaseImages.ts).
const globalSetup = ["packages/server/test/support/GlobalSetup.ts"]

export default defineConfig({
  test: {
    // The JSON report lets CI print a plain "N passed, N failed" line (see .ci/run); the last reporter ends the run
    // with a line per reason tests were skipped on this machine (vitest.reporter.ts).
    reporters: ["default", ["json", { outputFile: "test-artifacts/vitest.json" }], "./vitest.reporter.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["packages/*/test/**/*.test.ts"],
          exclude: [e2e, e2ePostgresOnly, "**/node_modules/**"]
        }
      },
      {
        extends: true,
        test: {
          name: "e2e:embedded",
          include: [e2e],
          globalSetup,
          env: { SIGNALMAN_TEST_DATABASE: "embedded" },
          testTimeout: 60_000,
          hookTimeout: 120_000
        }
      },
      {
        extends: true,
        test: {
          name: "e2e:postgres",
          include: [e2e, e2ePostgresOnly],
          globalSetup,
          env: { SIGNALMAN_TEST_DATABASE: "postgres" },
          testTimeout: 60_000,
          hookTimeout: 120_000
        }
      }
    ]
  }
})
