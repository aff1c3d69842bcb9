/**
 * `signalman validate` as a process: the problems of a file with bad lines, each with its file, line, column and
 * key path, and the exit code; discovery in the working directory; JSON and TypeScript configs.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { directory, run } from "./support/CliProcess.js"

const badYaml = `project: shop
variables:
  - key: token
    is_secret: true
    value: \${env:API_TOKEN}
channels:
  - key: ops
    name: Ops
    kind: slack
    config:
      webhook_url: http://hooks.example/x
monitors:
  - key: api
    name: API
    check:
      type: http
      url: https://shop.example/health
      urll: typo
    alerts: [ops, pager]
  - key: cert
    name: Certificate
    check: { type: tls_cert, host: shop.example }
    interval: 60
status_pages:
  - key: main
    slug: shop
    name: Shop
    components:
      - monitor: api
      - monitor: db
`

const goodYaml = `project: shop
variables:
  - key: token
    is_secret: true
    value: \${env:API_TOKEN}
monitors:
  - key: api
    name: API
    check: { type: http, url: "https://shop.example/health", headers: { Authorization: "Bearer {{token}}" } }
`

const badJson = `{
  "project": "shop",
  "monitors": [
    { "key": "api", "name": "API", "check": { "type": "http", "url": "https://shop.example" }, "interval": 5 },
    { "key": "api", "name": "Again", "check": { "type": "tcp", "host": "db.example" } }
  ]
}
`

const badTs = `import { defineConfig } from "@signalman/cli"

export default defineConfig({
  project: "shop",
  monitors: [{ key: "api", name: "API", check: { type: "http", url: "ftp://shop.example" }, alerts: ["ops"] }]
})
`

// Each test starts its own processes; they are independent, so they run side by side.
describe.concurrent("signalman validate", () => {
  it.scopedLive("a YAML file with bad lines: every problem on stderr by line and key path, exit 1 (from source)", () =>
    Effect.gen(function* () {
      const dir = yield* directory({ "signalman.yaml": badYaml })
      const secret = "s".repeat(5000)
      // From source, as `pnpm signalman` runs it; the other tests run the run's bundle.
      const exited = yield* run(["validate"], { cwd: dir, env: { API_TOKEN: secret }, source: true })
      assert.strictEqual(exited.code, 1)
      assert.strictEqual(exited.stdout, "")
      assert.deepStrictEqual(exited.stderr.split("\n"), [
        `signalman.yaml:5:5: variables[0].value: Expected a string at most 4096 character(s) long, actual "\${env:API_TOKEN}"`,
        "signalman.yaml:11:7: channels[0].config.webhook_url: must be an https URL",
        'signalman.yaml:18:7: monitors[0].check.urll: is unexpected, expected: "type" | "url" | "method" | "headers" | "body" | "expected_status" | "expected_body_contains" | "follow_redirects" | "verify_tls" | "basic_auth" | "bearer_token" | "timeout" | "ip_version"',
        'signalman.yaml:19:19: monitors[0].alerts[1]: no channel in this file has the key "pager"',
        "signalman.yaml:23:5: monitors[1].interval: interval must be at least 3600 s for a tls_cert check on the least restrictive plan",
        'signalman.yaml:30:9: status_pages[0].components[1].monitor: no monitor in this file has the key "db"',
        "6 problems in signalman.yaml",
        ""
      ])
      assert.notInclude(exited.stderr, "sssss")
    })
  )

  it.scopedLive(
    "a valid file found in the working directory: a summary on stdout, exit 0; --config names another",
    () =>
      Effect.gen(function* () {
        const dir = yield* directory({ "signalman.yml": goodYaml, "other.yaml": "project: [\n" })
        const exited = yield* run(["validate"], { cwd: dir, env: { API_TOKEN: "t0ken-value" } })
        assert.deepStrictEqual(exited, {
          code: 0,
          stdout:
            'signalman.yml: valid (project "shop": 1 variable, 0 channels, 1 monitor, 0 status pages, 0 maintenance windows)\n',
          stderr: ""
        })
        const other = yield* run(["validate", "--config", "other.yaml"], { cwd: dir })
        assert.strictEqual(other.code, 1)
        assert.match(other.stderr, /^other\.yaml:2:1: /)
      })
  )

  it.scopedLive("JSON by line and key path; a TypeScript config by key path, saying why it has no lines", () =>
    Effect.gen(function* () {
      const dir = yield* directory({ "signalman.json": badJson, "signalman.config.ts": badTs })
      const json = yield* run(["validate", "-c", "signalman.json"], { cwd: dir })
      assert.strictEqual(json.code, 1)
      assert.deepStrictEqual(json.stderr.split("\n"), [
        "signalman.json:4:96: monitors[0].interval: interval must be at least 10 s for a http check on the least restrictive plan",
        'signalman.json:5:7: monitors[1].key: "api" is already the key of monitors[0]',
        "signalman.json:5:38: monitors[1].check.port: is missing",
        "3 problems in signalman.json",
        ""
      ])
      const ts = yield* run(["validate", "-c", "signalman.config.ts"], { cwd: dir })
      assert.strictEqual(ts.code, 1)
      assert.deepStrictEqual(ts.stderr.split("\n"), [
        'signalman.config.ts: monitors[0].alerts[0]: no channel in this file has the key "ops"',
        "signalman.config.ts: monitors[0].check.url: check.url must be an http or https URL, not ftp:",
        "2 problems in signalman.config.ts (a TypeScript config has no line numbers: each problem is named by its key path)",
        ""
      ])
    })
  )
})
