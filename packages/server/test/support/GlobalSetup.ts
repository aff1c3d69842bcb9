/**
 * The e2e projects' global setup (`vitest.config.ts`): builds the migrated database each server starts from, once
 * per run, and hands its name to the test files (`inject`, read by `TestDatabase`); makes the run's test CA, trusted
 * by the workers through NODE_EXTRA_CA_CERTS, for the HTTPS servers tests start (TestCa.ts).
 */
import type { TestProject } from "vitest/node"
import * as DatabaseImages from "./DatabaseImages.js"
import * as TestCa from "./TestCa.js"

declare module "vitest" {
  export interface ProvidedContext {
    /** The image of a migrated embedded database (a file path). */
    readonly embeddedImage: string | undefined
    /** A migrated template database on the test PostgreSQL server. */
    readonly postgresTemplate: string | undefined
    /** The run's bundle of the CLI (test-support/Bundles.ts). */
    readonly cliBin: string
    /** The run's bundle of the agent (test-support/Bundles.ts). */
    readonly agentBin: string
    /** The run's CA, which the test workers trust through NODE_EXTRA_CA_CERTS (TestCa.ts). */
    readonly testCa: TestCa.Ca
  }
}

export default async function setup(project: TestProject): Promise<void> {
  // Before any worker forks: Node reads NODE_EXTRA_CA_CERTS only when a process starts.
  project.provide("testCa", TestCa.ensure())
  if (project.config.env["SIGNALMAN_TEST_DATABASE"] === "postgres") {
    project.provide("postgresTemplate", await DatabaseImages.postgresTemplate())
  } else {
    project.provide("embeddedImage", await DatabaseImages.embeddedImage())
  }
}
