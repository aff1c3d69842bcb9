import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { eventually } from "../support/Eventually.js"
import * as Http from "../support/Http.js"
import * as ServerProcess from "../support/ServerProcess.js"
import * as TestDatabase from "../support/TestDatabase.js"

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "sm-test-"))

describe("the server process", () => {
  it.effect("a bad setting stops the boot with one line naming it", () =>
    Effect.gen(function* () {
      const exit = yield* ServerProcess.runToExit([], { PORT: "eighty", DATA_DIR: "memory://" })
      expect(exit.code).toBe(1)
      const lines = exit.stderr.trim().split("\n")
      expect(lines).toHaveLength(1)
      expect(lines[0]).toBe(
        'signalman: invalid setting server.port (env PORT): must be a whole number from 0 to 65535, got "eighty"'
      )
    })
  )

  it.effect("quota, rate and interval settings below 1 are refused at load, naming the setting", () =>
    Effect.gen(function* () {
      const exit = yield* ServerProcess.runToExit([], {
        DATA_DIR: "memory://",
        CHECKER__PER_HOST_MAX_INFLIGHT: "0"
      })
      expect(exit.code).toBe(1)
      expect(exit.stderr.trim()).toBe(
        "signalman: invalid setting checker.per_host_max_inflight (env CHECKER__PER_HOST_MAX_INFLIGHT): must be at least 1, got 0"
      )
    })
  )

  it.effect("a bad setting in the config file is named with the file", () =>
    Effect.gen(function* () {
      const file = path.join(tempDir(), "signalman.yaml")
      fs.writeFileSync(file, "plan_cache_ttl_secs: 0\n")
      const exit = yield* ServerProcess.runToExit(["--config", file], { DATA_DIR: "memory://" })
      expect(exit.code).toBe(1)
      expect(exit.stderr.trim()).toBe(
        `signalman: invalid setting plan_cache_ttl_secs (file ${file}): must be at least 1, got 0`
      )
    })
  )

  it.effect("an unknown --role is refused with the usage", () =>
    Effect.gen(function* () {
      const exit = yield* ServerProcess.runToExit(["--role", "scheduler"], { DATA_DIR: "memory://" })
      expect(exit.code).toBe(1)
      expect(exit.stderr).toContain("signalman: --role must be api, worker or all")
    })
  )

  it.scopedLive(`--role worker answers only the operations probes (${TestDatabase.kind} database)`, () =>
    Effect.gen(function* () {
      const db = yield* TestDatabase.acquire
      const server = yield* ServerProcess.start(["--role", "worker"], db.env)
      expect((yield* Http.request(`${server.baseUrl}/healthz`)).status).toBe(200)
      expect((yield* Http.request(`${server.baseUrl}/readyz`)).status).toBe(200)
      for (const route of ["/api/openapi.json", "/docs"]) {
        const reply = yield* Http.request(`${server.baseUrl}${route}`)
        expect(reply.status).toBe(404)
        expect(Http.envelope(reply).code).toBe("NOT_FOUND")
      }
      // Agents talk to the API's processes, never a worker.
      const hello = yield* Http.request(`${server.baseUrl}/api/agent/v1/hello`, {
        headers: { authorization: `Bearer sm_agent_${"A".repeat(43)}` },
        json: { version: "1", browser: null, concurrency: 1 }
      })
      expect(hello.status).toBe(404)
    })
  )

  it.scopedLive("SIGTERM stops the process cleanly: exit code 0, the drain logged", () =>
    Effect.gen(function* () {
      const db = yield* TestDatabase.acquire
      const server = yield* ServerProcess.start([], { ...db.env, LOG__LEVEL: "info" })
      expect((yield* Http.request(`${server.baseUrl}/healthz`)).status).toBe(200)
      server.child.kill("SIGTERM")
      const exit = yield* Effect.promise(() => server.exited)
      expect(exit.code).toBe(0)
      expect(exit.stdout).toContain("Shutting down: draining requests")
    })
  )

  it.scopedLive(
    "with server.drain_delay_secs, SIGTERM turns /readyz 503 while requests are still served on new connections, then the listener closes",
    () =>
      Effect.gen(function* () {
        const db = yield* TestDatabase.acquire
        const server = yield* ServerProcess.start([], { ...db.env, LOG__LEVEL: "info", SERVER__DRAIN_DELAY_SECS: "3" })
        expect((yield* Http.request(`${server.baseUrl}/readyz`)).status).toBe(200)
        const signalledAt = Date.now()
        server.child.kill("SIGTERM")
        const readyz = yield* eventually(Http.request(`${server.baseUrl}/readyz`), (reply) => reply.status === 503, {
          intervalMs: 20
        })
        expect(readyz.status).toBe(503)
        // Not ready, yet still serving: a request on a new connection (fetch opens one per request here) is answered.
        expect((yield* Http.request(`${server.baseUrl}/api/openapi.json`)).status).toBe(200)
        const exit = yield* Effect.promise(() => server.exited)
        expect(exit.code).toBe(0)
        expect(Date.now() - signalledAt).toBeGreaterThanOrEqual(3000)
        const notReady = exit.stdout.indexOf("Shutting down: not ready, still serving")
        expect(notReady).toBeGreaterThan(-1)
        expect(exit.stdout.indexOf("Shutting down: draining requests")).toBeGreaterThan(notReady)
      })
  )

  it.scopedLive(
    "a changed auth.fingerprint_salt refuses to boot unless the rotation is acknowledged",
    () =>
      Effect.gen(function* () {
        const dataDir = tempDir()
        const first = yield* ServerProcess.start([], { DATA_DIR: dataDir, AUTH__FINGERPRINT_SALT: "salt-one" })
        first.child.kill("SIGTERM")
        expect((yield* Effect.promise(() => first.exited)).code).toBe(0)
        const refused = yield* ServerProcess.runToExit([], { DATA_DIR: dataDir, AUTH__FINGERPRINT_SALT: "salt-two" })
        expect(refused.code).toBe(1)
        expect(refused.stderr.trim()).toBe(
          "signalman: could not start: auth.fingerprint_salt differs from the salt the stored fingerprints were made with; " +
            "set auth.fingerprint_salt_rotate=true to rotate it"
        )
        const rotated = yield* ServerProcess.start([], {
          DATA_DIR: dataDir,
          AUTH__FINGERPRINT_SALT: "salt-two",
          AUTH__FINGERPRINT_SALT_ROTATE: "true"
        })
        expect((yield* Http.request(`${rotated.baseUrl}/readyz`)).status).toBe(200)
      }),
    // Three boots on one embedded database, the first creating it: over a minute on a loaded 2-core machine.
    180_000
  )

  it.scopedLive("a second process on the same data_dir is refused while the first runs", () =>
    Effect.gen(function* () {
      const dataDir = tempDir()
      const first = yield* ServerProcess.start([], { DATA_DIR: dataDir })
      const second = yield* ServerProcess.runToExit([], { DATA_DIR: dataDir })
      expect(second.code).toBe(1)
      expect(second.stderr.trim()).toBe(
        `signalman: could not start: the data directory ${dataDir} is in use by process ${first.child.pid}`
      )
      expect((yield* Http.request(`${first.baseUrl}/readyz`)).status).toBe(200)
    })
  )
})
