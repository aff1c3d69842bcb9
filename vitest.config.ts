import { defineConfig } from "vitest/config"

// Three projects: the pure and unit tests, then the end-to-end suite twice, once per database. Each e2e test
// file gets a fresh database (see packages/server/test/support/TestDatabase.ts).
const e2e = "packages/server/test/e2e/**/*.test.ts"
// Outages and drains need a database the test can cut off from the server: PostgreSQL behind a proxy.
const e2ePostgresOnly = "packages/server/test/e2e-postgres/**/*.test.ts"
// The dashboard in Chromium: on the embedded database only (the one a newcomer runs), since the data behind every
// page is the API's, which the e2e suite covers on both databases; a browser per page group is the suite's dearest
// test, and twice would buy nothing.
const e2eBrowser = "packages/server/test/e2e-browser/**/*.test.ts"
// Timed against the wall clock with real agent processes, a server killed and restarted, leases lapsing: run last and
// alone, since a second file beside it on two cores slows its agents past what its timings allow.
const alone = ["packages/server/test/e2e-postgres/AgentFailover.test.ts"]
// Unit files that change what is process-wide and a worker thread cannot (the time zone, through TZ): a process of
// their own.
const processBound = ["packages/server/test/DashboardTime.test.ts"]
// The fault suite and the split deployment (issue 20): whole deployments of processes under load, PostgreSQL
// stopped, workers killed, minutes of wall clock each. Not in `pnpm test`: `pnpm test:faults` runs them
// (vitest.faults.config.ts), and CI runs both.
const faults = "packages/server/test/faults/**"
// Bundles the CLI and the agent once per run for the tests that start them as processes (test-support/Bundles.ts);
// migrates one database per run that every server of the project copies (see DatabaseImages.ts).
const globalSetup = ["test-support/Bundles.ts", "packages/server/test/support/GlobalSetup.ts"]

export default defineConfig({
  test: {
    // The JSON report lets CI print a plain "N passed, N failed" line (see .ci/run); the last reporter ends the run
    // with a line per reason tests were skipped on this machine (vitest.reporter.ts).
    reporters: ["default", ["json", { outputFile: "test-artifacts/vitest.json" }], "./vitest.reporter.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two files at a time on a 2-core machine (vitest's default is one worker per spare core: one). Most of an e2e
    // file's time is spent waiting (on its server, a probe's timeout, a child process), so a second file fills it.
    maxWorkers: 2,
    minWorkers: 1,
    // The e2e files run in forks that are reused from file to file (not isolated): each file starts its own server
    // on its own database and shares no module state with the next, and importing the whole server afresh for
    // every file was a fifth of the suite's time. The unit files keep a fresh worker thread each: run one after
    // another in a reused process, a file's Effect test clock was found missing once others had run.
    pool: "forks",
    poolOptions: { forks: { isolate: false }, threads: { isolate: true } },
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          pool: "threads",
          globalSetup: ["test-support/Bundles.ts"],
          include: ["packages/*/test/**/*.test.ts"],
          exclude: [e2e, e2ePostgresOnly, e2eBrowser, faults, ...processBound, "**/node_modules/**"]
        }
      },
      {
        extends: true,
        test: { name: "unit:process", pool: "forks", include: processBound }
      },
      {
        extends: true,
        test: {
          name: "e2e:embedded",
          include: [e2e, e2eBrowser],
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
          exclude: [...alone, "**/node_modules/**"],
          globalSetup,
          env: { SIGNALMAN_TEST_DATABASE: "postgres" },
          testTimeout: 60_000,
          hookTimeout: 120_000
        }
      },
      {
        extends: true,
        test: {
          name: "e2e:postgres:alone",
          include: alone,
          // A later group: it starts once every other file has finished.
          sequence: { groupOrder: 1 },
          globalSetup,
          env: { SIGNALMAN_TEST_DATABASE: "postgres" },
          testTimeout: 60_000,
          hookTimeout: 120_000
        }
      }
    ]
  }
})
