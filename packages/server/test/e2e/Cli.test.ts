/**
 * Monitoring as code end to end: the `signalman` CLI as its own process (from source, as `pnpm signalman` runs it)
 * against the real server: `apply`, `plan` (text and JSON, exit codes 0/2/1), `import`, `pull` (with and without
 * `--adopt`) and `test`; the service's state read back through the SDK. Each CLI start costs seconds, so every
 * invocation here checks something no other does, and the tests share one org's history in order.
 */
import { execFile } from "node:child_process"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { expect } from "@effect/vitest"
import { createClient, type Signalman } from "@signalman/sdk"
import * as Effect from "effect/Effect"
import { inject } from "vitest"
import * as CountingOrigin from "../support/CountingOrigin.js"
import * as Fixture from "../support/Fixture.js"
import * as TestDatabase from "../support/TestDatabase.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..")
const cliDir = path.join(root, "packages/cli")

interface Exited {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** `signalman <args>` with only `env` (and PATH), stdin not a terminal; bounded by 60 s. */
const signalman = (args: ReadonlyArray<string>, env: Record<string, string>) =>
  Effect.promise(
    () =>
      new Promise<Exited>((resolve) => {
        execFile(
          process.execPath,
          [inject("cliBin"), ...args],
          { cwd: cliDir, env: { PATH: process.env["PATH"] ?? "", ...env }, timeout: 60_000 },
          (error, stdout, stderr) => resolve({ code: error === null ? 0 : Number(error.code ?? 1), stdout, stderr })
        )
      })
  )

const tmp = Effect.acquireRelease(
  Effect.promise(() => fs.mkdtemp(path.join(os.tmpdir(), "signalman-e2e-cli-"))),
  (dir) => Effect.promise(() => fs.rm(dir, { recursive: true, force: true }))
)

const write = (file: string, config: unknown) => Effect.promise(() => fs.writeFile(file, JSON.stringify(config)))

const every = <A>(request: AsyncIterable<A>) =>
  Effect.promise(async () => {
    const out: Array<A> = []
    for await (const item of request) out.push(item)
    return out
  })

const call = <A>(f: () => PromiseLike<A>) => Effect.promise(() => Promise.resolve(f()))

const shopSlug = `shop-${Date.now().toString(36)}`

const shop = (web: { interval: number }, db: Record<string, unknown>, extra: ReadonlyArray<unknown> = []) => ({
  project: "shop",
  variables: [{ key: "base_url", value: "https://shop.example" }],
  channels: [{ key: "ops", name: "Ops", kind: "email", config: { addresses: ["ops@shop.example"] } }],
  monitors: [
    {
      key: "web",
      name: "Web",
      check: { type: "http", url: "{{base_url}}/health" },
      interval: web.interval,
      alerts: ["ops"]
    },
    { key: "db", name: "DB", check: db, interval: 300 },
    ...extra
  ],
  status_pages: [{ key: "public", slug: shopSlug, name: "Shop", components: [{ monitor: "web" }] }],
  maintenance: [
    {
      key: "upgrade",
      title: "DB upgrade",
      starts_at: "2031-05-01T22:00:00Z",
      ends_at: "2031-05-01T23:00:00Z",
      components: ["db"]
    }
  ]
})

const tcp = { type: "tcp", host: "db.shop.example", port: 5432 }
const ping = { type: "ping", host: "db.shop.example" }
const old = { key: "old", name: "Old", check: { type: "http", url: "https://shop.example/old" }, interval: 300 }

Fixture.describe(
  `the signalman CLI (${TestDatabase.kind} database)`,
  { env: { CHECKER__ALLOW_PRIVATE_TARGETS: "true" } },
  (it) => {
    it.scoped(
      "apply creates, plan is empty (0), an edit plans exactly its changes (2), apply keeps ids, replaces, deletes, " +
        "and leaves the API's and another project's resources alone; a refused write is reported as partial (1)",
      () =>
        Effect.gen(function* () {
          const { baseUrl } = yield* Fixture.server
          // Pro: the file checks every minute, under the Free plan's floor.
          const alice = yield* Fixture.person({ label: "cli", plan: "pro" })
          const env = { SIGNALMAN_URL: baseUrl, SIGNALMAN_TOKEN: alice.token }
          const api: Signalman = createClient({ baseUrl, token: alice.token })
          const dir = yield* tmp
          const file = path.join(dir, "shop.json")

          const byHand = yield* call(() =>
            api.targets.create({
              name: "By hand",
              check: { type: "http", url: "https://shop.example/" },
              interval: 300
            })
          )

          yield* write(file, shop({ interval: 60 }, tcp, [old]))
          const first = yield* signalman(["apply", "--yes", "-c", file], env)
          expect(first.code, first.stderr).toBe(0)
          expect(first.stdout).toContain("Plan: 7 to create, 0 to update, 0 to replace, 0 to delete (0 unchanged).")
          expect(first.stdout).toContain("Applied: 7 created, 0 updated, 0 replaced, 0 deleted.")

          const managed = yield* every(api.targets.list({ managed_by: "shop" }))
          expect(managed.map((t) => t.managed_by?.key).sort()).toEqual(["db", "old", "web"])
          for (const t of managed) expect(t.write_source).toBe("iac")
          const ids = new Map(managed.map((t) => [t.managed_by?.key, t.id]))
          const web = managed.find((t) => t.managed_by?.key === "web")
          const channels = yield* every(api.channels.list({ managed_by: "shop" }))
          expect(web?.alerts).toEqual([{ channel_id: channels[0]?.id }])

          const unchanged = yield* signalman(["plan", "-c", file], env)
          expect(unchanged.code, unchanged.stderr).toBe(0)
          expect(unchanged.stdout.trim()).toBe('No changes: project "shop" is as the file says (7 unchanged).')

          // One field edited, a check type changed, an item removed.
          yield* write(file, shop({ interval: 120 }, ping))
          const planned = yield* signalman(["plan", "--json", "-c", file], env)
          expect(planned.code, planned.stderr).toBe(2)
          const json = JSON.parse(planned.stdout)
          // The window names db, which is replaced: it is updated to the new one.
          expect(json.summary).toEqual({ create: 0, update: 2, replace: 1, delete: 1, unchanged: 3 })
          expect(json.changes.map((c: { action: string; key: string }) => `${c.action} ${c.key}`)).toEqual([
            "update web",
            "replace db",
            "update upgrade",
            "delete old"
          ])
          expect(json.changes[0].fields).toEqual([{ field: "interval", old: 60, new: 120 }])

          const refused = yield* signalman(["apply", "-c", file], env)
          expect(refused.code).toBe(1)
          expect(refused.stderr).toContain("signalman apply: not a terminal, so nothing was applied: pass --yes")
          expect((yield* call(() => api.targets.get(ids.get("web")!))).interval).toBe(60)

          const second = yield* signalman(["apply", "--yes", "-c", file], env)
          expect(second.code, second.stderr).toBe(0)
          expect(second.stdout).toContain("Applied: 0 created, 2 updated, 1 replaced, 1 deleted.")
          const after = yield* every(api.targets.list({ managed_by: "shop" }))
          const webAfter = after.find((t) => t.managed_by?.key === "web")
          const dbAfter = after.find((t) => t.managed_by?.key === "db")
          expect(webAfter?.id).toBe(ids.get("web"))
          expect(webAfter?.interval).toBe(120)
          expect(dbAfter?.check["type"]).toBe("ping")
          expect(dbAfter?.id).not.toBe(ids.get("db"))
          expect(after.some((t) => t.managed_by?.key === "old")).toBe(false)
          const [maintenance] = yield* every(api.maintenance.list({ managed_by: "shop", status: "upcoming" }))
          expect(maintenance?.components).toEqual([dbAfter?.id])
          const untouched = yield* call(() => api.targets.get(byHand.id))
          expect(untouched.managed_by).toBeNull()
          expect(untouched.updated_at).toEqual(byHand.updated_at)

          // Another project in the same org, with the same keys: each sees only its own.
          const blog = path.join(dir, "blog.json")
          yield* write(blog, {
            project: "blog",
            monitors: [
              { key: "web", name: "Blog", check: { type: "http", url: "https://blog.example/" }, interval: 300 }
            ]
          })
          const blogApplied = yield* signalman(["apply", "--yes", "-c", blog], env)
          expect(blogApplied.code, blogApplied.stderr).toBe(0)

          // A monitor the service refuses (a region it does not have) after a channel it accepts: partial, exit 1.
          const bad = {
            key: "bad",
            name: "Bad",
            check: { type: "http", url: "https://shop.example/bad" },
            regions: ["mars"]
          }
          const withBad = shop({ interval: 120 }, ping, [bad])
          yield* write(file, {
            ...withBad,
            channels: [
              ...withBad.channels,
              { key: "pager", name: "Pager", kind: "email", config: { addresses: ["p@shop.example"] } }
            ]
          })
          const partial = yield* signalman(["apply", "--yes", "-c", file], env)
          expect(partial.code).toBe(1)
          expect(partial.stdout).toContain("Plan: 2 to create, 0 to update, 0 to replace, 0 to delete (6 unchanged).")
          expect(partial.stderr).toContain("Applied (1):\n  + channel pager\nFailed: + monitor bad: ")
          expect(partial.stderr).toContain("Not applied (1):\n  + monitor bad")
          expect((yield* every(api.targets.list({ managed_by: "blog" }))).map((t) => t.name)).toEqual(["Blog"])
        })
    )

    it.scoped(
      "pull --adopt writes the org as a file that plans no change; import adopts one more; the pulled file applied " +
        "to a fresh org reproduces it; test runs each monitor once (exit 1 when one is down)",
      () =>
        Effect.gen(function* () {
          const { baseUrl } = yield* Fixture.server
          const bob = yield* Fixture.person({ label: "cli-pull" })
          const env = { SIGNALMAN_URL: baseUrl, SIGNALMAN_TOKEN: bob.token }
          const api = createClient({ baseUrl, token: bob.token })
          const origin = yield* CountingOrigin.make
          const dir = yield* tmp

          const channel = yield* call(() =>
            api.channels.create({ name: "Ops team", kind: "email", config: { addresses: ["ops@bob.example"] } })
          )
          yield* call(() => api.variables.create({ key: "region_name", value: "eu" }))
          const up = yield* call(() =>
            api.targets.create({
              name: "Origin",
              check: { type: "http", url: `${origin.base}/ok` },
              interval: 300,
              tags: ["prod"],
              alerts: [{ channel_id: channel.id }]
            })
          )
          yield* call(() =>
            api.targets.create({
              name: "Closed port",
              check: { type: "tcp", host: "127.0.0.1", port: 9 },
              interval: 300
            })
          )
          const page = yield* call(() =>
            api.statusPages.create({ slug: `bob-${Date.now().toString(36)}`, name: "Bob" })
          )
          yield* call(() => api.statusPages.addComponent(page.id, { target_id: up.id, public_name: "Site" }))

          const pulledFile = path.join(dir, "pulled.yaml")
          const pulled = yield* signalman(["pull", "--adopt", "--project", "bob", "--out", pulledFile], env)
          expect(pulled.code, pulled.stderr).toBe(0)
          expect(pulled.stdout).toContain(`Wrote ${pulledFile}: project "bob", 5 resources.`)
          expect(pulled.stdout).toContain('Adopted 5 resources into project "bob".')
          const text = yield* Effect.promise(() => fs.readFile(pulledFile, "utf8"))
          expect(text).toContain("key: ops-team")
          expect(text).toContain("- ops-team")
          expect(text).toContain("monitor: origin")

          const clean = yield* signalman(["plan", "-c", pulledFile], env)
          expect(clean.code, clean.stderr).toBe(0)
          expect(clean.stdout.trim()).toBe('No changes: project "bob" is as the file says (5 unchanged).')

          const later = yield* call(() =>
            api.targets.create({ name: "Later", check: { type: "http", url: `${origin.base}/later` }, interval: 300 })
          )
          const imported = yield* signalman(["import", "monitor", later.id, "later", "-c", pulledFile], env)
          expect(imported.code, imported.stderr).toBe(0)
          expect((yield* call(() => api.targets.get(later.id))).managed_by).toEqual({ project: "bob", key: "later" })

          const carol = yield* Fixture.person({ label: "cli-fresh" })
          const fresh = { SIGNALMAN_URL: baseUrl, SIGNALMAN_TOKEN: carol.token }
          // The status page's slug is taken by bob's: the copy gets its own.
          yield* Effect.promise(() =>
            fs.writeFile(pulledFile, text.replace(`slug: ${page.slug}`, `slug: ${page.slug}-copy`))
          )
          const reproduced = yield* signalman(["apply", "--yes", "-c", pulledFile], fresh)
          expect(reproduced.code, reproduced.stderr).toBe(0)
          expect(reproduced.stdout).toContain("Applied: 5 created, 0 updated, 0 replaced, 0 deleted.")
          const copy = createClient({ baseUrl, token: carol.token })
          const copied = yield* every(copy.targets.list({ managed_by: "bob" }))
          expect(copied.map((t) => [t.name, t.check, t.tags]).sort()).toEqual(
            (yield* every(api.targets.list({ managed_by: "bob" })))
              .filter((t) => t.id !== later.id)
              .map((t) => [t.name, t.check, t.tags])
              .sort()
          )

          const tested = yield* signalman(["test", "-c", pulledFile], fresh)
          expect(tested.code).toBe(1)
          const rows = tested.stdout.trim().split("\n")
          expect(rows[0]).toMatch(/^KEY\s+STATUS\s+DURATION\s+ERROR$/)
          expect(rows.slice(1).map((row) => row.split(/\s+/).slice(0, 2))).toEqual(
            expect.arrayContaining([
              ["origin", "up"],
              ["closed-port", "down"]
            ])
          )
          expect(tested.stderr).toContain("signalman test: 1 of 2 monitors not up")
        })
    )

    it.scoped(
      "examples/cli-config: its YAML applied, its TypeScript twin plans no change; a refused token is exit 1",
      () =>
        Effect.gen(function* () {
          const { baseUrl } = yield* Fixture.server
          const dana = yield* Fixture.person({ label: "cli-example", plan: "pro" })
          const env = {
            SIGNALMAN_URL: baseUrl,
            SIGNALMAN_TOKEN: dana.token,
            SHOP_API_TOKEN: "example-token",
            SLACK_WEBHOOK_URL: "https://hooks.slack.com/services/T000/B000/XXXX"
          }
          const example = path.join(root, "examples/cli-config")
          const applied = yield* signalman(["apply", "--yes", "-c", path.join(example, "signalman.yaml")], env)
          expect(applied.code, applied.stderr).toBe(0)
          const planned = yield* signalman(["plan", "-c", path.join(example, "signalman.config.ts")], env)
          expect(planned.code, planned.stdout + planned.stderr).toBe(0)
          expect(planned.stdout).toContain('No changes: project "shop"')

          // A service that refuses the caller: plan says so and exits 1 (not 0, not 2).
          const refused = yield* signalman(["plan", "-c", path.join(example, "signalman.yaml")], {
            ...env,
            SIGNALMAN_TOKEN: "sm_live_not-a-real-token"
          })
          expect(refused.code).toBe(1)
          expect(refused.stderr).toMatch(/^signalman plan: http:\/\/127\.0\.0\.1:\d+: .+ \(UNAUTHENTICATED\)\n$/)
        })
    )
  }
)
