/**
 * The SDK's Promise client against the real server: every resource namespace through create, read, update and
 * delete where the resource has them, lists iterated over several pages, a browser session's client for the
 * session-only routes, the public status endpoints, and the service's refusals as `SignalmanError`s.
 */
import { expect } from "@effect/vitest"
import { type ClientOptions, createClient, type Signalman, SignalmanError } from "@signalman/sdk"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as CountingOrigin from "../support/CountingOrigin.js"
import * as Fixture from "../support/Fixture.js"
import * as TestDatabase from "../support/TestDatabase.js"

/** The answer of a call that must succeed. */
const ok = <A>(call: () => PromiseLike<A>): Effect.Effect<A> => Effect.promise(() => Promise.resolve(call()))

/** The refusal of a call that must fail. */
const refused = (call: () => PromiseLike<unknown>): Effect.Effect<SignalmanError> =>
  Effect.promise(async () => {
    try {
      await call()
    } catch (error) {
      if (error instanceof SignalmanError) return error
      throw error
    }
    throw new Error("expected a SignalmanError")
  })

const collect = <A>(items: AsyncIterable<A>): Effect.Effect<ReadonlyArray<A>> =>
  Effect.promise(async () => {
    const out: Array<A> = []
    for await (const item of items) out.push(item)
    return out
  })

/** A `fetch` that counts its calls, to see how many pages an iteration asked for. */
const counting = () => {
  const seen: Array<string> = []
  const fetch: NonNullable<ClientOptions["fetch"]> = (input, init) => {
    seen.push(input)
    return globalThis.fetch(input, init)
  }
  return { fetch, seen }
}

/** A person's token client. */
const tokenClient = (baseUrl: string, person: Fixture.Person, options: Partial<ClientOptions> = {}): Signalman =>
  createClient({ baseUrl, token: person.token, ...options })

/** A person's browser-session client: the cookie the browser holds, no token. */
const sessionClient = (baseUrl: string, person: Fixture.Person): Signalman =>
  createClient({
    baseUrl,
    fetch: (input, init) => {
      const headers = new Headers(init.headers)
      headers.set("cookie", [...person.browser.cookies].map(([k, v]) => `${k}=${v}`).join("; "))
      return globalThis.fetch(input, { ...init, headers })
    }
  })

let sequence = 0
const unique = (label: string) => `${label}-${Date.now().toString(36)}-${sequence++}`
const inHours = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString()

// A 1x1 PNG: the logo upload reads the type from the bytes.
const PNG = Uint8Array.from(
  atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="),
  (c) => c.charCodeAt(0)
)

Fixture.describe(
  `the SDK against the server (${TestDatabase.kind} database)`,
  { env: { CHECKER__ALLOW_PRIVATE_TARGETS: "true" } },
  (it) => {
    it.scoped(
      "targets: create, get, update, list iterated over pages, bulk, duplicate, bulk action, tags, regions, delete",
      () =>
        Effect.gen(function* () {
          const { baseUrl } = yield* Fixture.server
          const alice = yield* Fixture.person({ label: "sdk-targets" })
          const web = yield* CountingOrigin.make
          const pages = counting()
          const signalman = tokenClient(baseUrl, alice, { fetch: pages.fetch })

          const created = yield* ok(() =>
            signalman.targets.create({ name: "www", check: { type: "http", url: `${web.base}/health` }, tags: ["sdk"] })
          )
          expect(created.check["url"]).toBe(`${web.base}/health`)
          expect(created.write_source).toBe("api")
          expect(DateTime.isDateTime(created.created_at)).toBe(true)
          expect((yield* ok(() => signalman.targets.get(created.id))).name).toBe("www")
          const copies = yield* ok(() =>
            signalman.targets.duplicate(created.id, { copies: [{ name: "www copy", address: `${web.base}/other` }] })
          )
          expect(copies.data[0]?.check["url"]).toBe(`${web.base}/other`)

          const bulk = yield* ok(() =>
            signalman.targets.bulk({
              targets: [1, 2, 3, 4].map((i) => ({ name: `bulk-${i}`, check: { type: "manual" }, tags: ["sdk"] }))
            })
          )
          expect(bulk.data.map((t) => t.name)).toEqual(["bulk-1", "bulk-2", "bulk-3", "bulk-4"])
          const updated = yield* ok(() => signalman.targets.update(created.id, { interval: 300, enabled: false }))
          expect([updated.interval, updated.enabled]).toEqual([300, false])

          // Six monitors, four a page: two requests, each monitor once.
          const before = pages.seen.length
          const all = yield* collect(signalman.targets.list({ limit: 4 }))
          expect(pages.seen.length - before).toBe(2)
          expect(all.length).toBe(6)
          expect(new Set(all.map((t) => t.id)).size).toBe(6)
          const first = yield* ok(() => signalman.targets.list({ limit: 2, tag: "sdk" }))
          expect([first.data.length, first.total, first.limit, first.offset]).toEqual([2, 6, 2, 0])
          const paused = yield* collect(signalman.targets.list({ enabled: false }))
          expect(paused.map((t) => t.id)).toEqual([created.id])

          const acted = yield* ok(() =>
            signalman.targets.bulkAction({ action: "tag-add", ids: bulk.data.map((t) => t.id), tags: ["batch"] })
          )
          expect(acted.updated).toBe(4)
          const tags = yield* collect(signalman.targets.tags({ limit: 1 }))
          expect(tags.map((t) => [t.tag, t.targets])).toEqual([
            ["batch", 4],
            ["sdk", 6]
          ])

          const regions = yield* ok(() => signalman.targets.listRegions())
          expect(regions.regions.map((r) => r.id)).toContain("local")
          const set = yield* ok(() => signalman.targets.setRegions(created.id, { regions: ["local"] }))
          expect(set.regions.map((r) => r.id)).toEqual(["local"])
          expect((yield* ok(() => signalman.targets.regions(created.id))).regions.map((r) => r.id)).toEqual(["local"])

          expect(yield* ok(() => signalman.targets.delete(created.id))).toBeUndefined()
          const gone = yield* refused(() => signalman.targets.get(created.id))
          expect([gone.status, gone.code]).toEqual([404, "NOT_FOUND"])
        })
    )

    it.scoped("targets: test, check-now, results iterated, latency, by region, uptime, flow steps, summary", () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* Fixture.server
        const bob = yield* Fixture.person({ label: "sdk-results" })
        const web = yield* CountingOrigin.make
        const signalman = tokenClient(baseUrl, bob)
        const tested = yield* ok(() => signalman.targets.test({ check: { type: "http", url: web.base } }))
        expect(tested.status).toBe("up")
        const target = yield* ok(() =>
          signalman.targets.create({ name: "api", check: { type: "http", url: web.base }, enabled: false })
        )
        for (let i = 0; i < 3; i++) expect((yield* ok(() => signalman.targets.checkNow(target.id))).status).toBe("up")

        const results = yield* collect(signalman.targets.results(target.id, { limit: 2 }))
        expect(results.length).toBe(3)
        expect(results.every((r) => r.status === "up" && r.region === "local")).toBe(true)
        const range = { from: DateTime.subtract(DateTime.unsafeNow(), { hours: 1 }), to: DateTime.unsafeNow() }
        const latency = yield* ok(() => signalman.targets.latency(target.id, range))
        expect(latency.buckets.reduce((n, b) => n + b.checks, 0)).toBe(3)
        const byRegion = yield* ok(() => signalman.targets.latencyByRegion(target.id, range))
        expect(byRegion.regions.map((r) => r.region)).toEqual(["local"])
        const uptime = yield* ok(() => signalman.targets.uptime(target.id, { region: "local" }))
        expect([uptime.checks, uptime.up]).toEqual([3, 3])
        expect((yield* ok(() => signalman.targets.flowSteps(target.id))).steps).toEqual([])
        const summary = yield* ok(() => signalman.targets.summary())
        expect(summary.targets.total).toBe(1)
        expect((yield* ok(() => signalman.targets.incidents(target.id))).data).toEqual([])
      })
    )

    it.effect("heartbeats and manual monitors: record, rotate, end the overlap; state and set state", () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* Fixture.server
        const carol = yield* Fixture.person({ label: "sdk-heartbeats" })
        const signalman = tokenClient(baseUrl, carol)
        const beat = yield* ok(() =>
          signalman.targets.create({ name: "nightly", check: { type: "heartbeat", period: 86_400, grace: 3_600 } })
        )
        const record = yield* ok(() => signalman.heartbeats.record(beat.id))
        expect(record.pending).toBe(true)
        const rotated = yield* ok(() => signalman.heartbeats.rotate(beat.id))
        expect(rotated.ping_url).not.toBe(record.ping_url)
        expect(rotated.previous_url_expires_at).toBeDefined()
        expect(yield* ok(() => signalman.heartbeats.endPrevious(beat.id))).toBeUndefined()
        expect((yield* ok(() => signalman.heartbeats.record(beat.id))).previous_url_expires_at).toBeUndefined()

        const manual = yield* ok(() => signalman.targets.create({ name: "vendor", check: { type: "manual" } }))
        const set = yield* ok(() => signalman.heartbeats.setState(manual.id, { status: "down", note: "vendor outage" }))
        expect([set.status, set.note]).toEqual(["down", "vendor outage"])
        expect((yield* ok(() => signalman.heartbeats.state(manual.id))).status).toBe("down")
        const notManual = yield* refused(() => signalman.heartbeats.state(beat.id))
        expect([notManual.status, notManual.code]).toEqual([404, "MANUAL_NOT_CONFIGURED"])
      })
    )

    it.effect("shares: create, list, revoke", () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* Fixture.server
        const dave = yield* Fixture.person({ label: "sdk-shares" })
        const signalman = tokenClient(baseUrl, dave)
        const target = yield* ok(() => signalman.targets.create({ name: "shop", check: { type: "manual" } }))
        const share = yield* ok(() => signalman.shares.create(target.id, { label: "for the client" }))
        expect(share.label).toBe("for the client")
        expect((yield* ok(() => signalman.shares.list(target.id))).data.map((s) => s.id)).toEqual([share.id])
        expect(yield* ok(() => signalman.shares.revoke({ id: target.id, share_id: share.id }))).toBeUndefined()
        expect((yield* ok(() => signalman.shares.list(target.id))).data).toEqual([])
        const again = yield* refused(() => signalman.shares.revoke({ id: target.id, share_id: share.id }))
        expect(again.code).toBe("NOT_FOUND")
      })
    )

    it.scoped("channels: create, get, update, list, test, delete", () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* Fixture.server
        const erin = yield* Fixture.person({ label: "sdk-channels" })
        const hook = yield* CountingOrigin.make
        const signalman = tokenClient(baseUrl, erin)
        const created = yield* ok(() =>
          signalman.channels.create({ name: "ops hook", kind: "webhook", config: { url: `${hook.base}/in` } })
        )
        expect(created.signing_secret).toMatch(/.+/)
        expect((yield* ok(() => signalman.channels.get(created.id))).name).toBe("ops hook")
        const renamed = yield* ok(() => signalman.channels.update(created.id, { name: "ops", enabled: false }))
        expect([renamed.name, renamed.enabled]).toEqual(["ops", false])
        const listed = yield* collect(signalman.channels.list({ kind: "webhook" }))
        expect(listed.map((c) => c.id)).toEqual([created.id])
        const delivery = yield* ok(() => signalman.channels.test(created.id))
        expect(delivery.delivered).toBe(true)
        expect(hook.count("/in")).toBe(1)
        expect(yield* ok(() => signalman.channels.delete(created.id))).toBeUndefined()
        expect((yield* refused(() => signalman.channels.get(created.id))).code).toBe("NOT_FOUND")
      })
    )

    it.effect("variables: create, get, rotate, list, the in-use guard, delete", () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* Fixture.server
        const frank = yield* Fixture.person({ label: "sdk-variables" })
        const signalman = tokenClient(baseUrl, frank)
        const secret = yield* ok(() => signalman.variables.create({ key: "api_key", value: "s3cret", is_secret: true }))
        expect(secret.value).toBeNull()
        expect(secret.used_by).toBe(0)
        const host = yield* ok(() => signalman.variables.create({ key: "host", value: "example.com" }))
        expect((yield* ok(() => signalman.variables.get(host.id))).value).toBe("example.com")
        expect((yield* ok(() => signalman.variables.rotate(host.id, { value: "example.org" }))).value).toBe(
          "example.org"
        )
        expect((yield* collect(signalman.variables.list({ limit: 1 }))).map((v) => v.key)).toEqual(["api_key", "host"])
        yield* ok(() =>
          signalman.targets.create({
            name: "uses the key",
            check: { type: "http", url: "https://example.com/", headers: { "x-api-key": "{{api_key}}" } }
          })
        )
        expect((yield* ok(() => signalman.variables.get(secret.id))).used_by).toBe(1)
        const inUse = yield* refused(() => signalman.variables.delete(secret.id))
        expect([inUse.status, inUse.code]).toEqual([409, "VARIABLE_IN_USE"])
        expect(yield* ok(() => signalman.variables.delete(host.id))).toBeUndefined()
      })
    )

    it.effect("maintenance: create, get, update, post an update, list, cancel", () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* Fixture.server
        const grace = yield* Fixture.person({ label: "sdk-maintenance" })
        const signalman = tokenClient(baseUrl, grace)
        const target = yield* ok(() => signalman.targets.create({ name: "db", check: { type: "manual" } }))
        const window = yield* ok(() =>
          signalman.maintenance.create({
            title: "Database upgrade",
            starts_at: inHours(24),
            ends_at: inHours(26),
            components: [target.id]
          })
        )
        expect([window.status, window.suppress_alerts, window.components]).toEqual(["upcoming", true, [target.id]])
        expect((yield* ok(() => signalman.maintenance.get(window.id))).title).toBe("Database upgrade")
        const moved = yield* ok(() => signalman.maintenance.update(window.id, { ends_at: inHours(27) }))
        expect(DateTime.toEpochMillis(moved.ends_at)).toBeGreaterThan(DateTime.toEpochMillis(window.ends_at))
        const posted = yield* ok(() =>
          signalman.maintenance.postUpdate(window.id, { message: "On schedule", status: "scheduled" })
        )
        expect(posted.updates.map((u) => u.message)).toEqual(["On schedule"])
        expect((yield* collect(signalman.maintenance.list({ status: "upcoming" }))).map((w) => w.id)).toEqual([
          window.id
        ])
        const cancelled = yield* ok(() => signalman.maintenance.delete(window.id))
        expect(cancelled.status).toBe("cancelled")
        expect(cancelled.deleted_at).not.toBeNull()
      })
    )

    it.effect(
      "incidents: declare, get, narrate, update, acknowledge, resolve, deliveries, postmortem, metrics, list",
      () =>
        Effect.gen(function* () {
          const { baseUrl } = yield* Fixture.server
          const heidi = yield* Fixture.person({ label: "sdk-incidents", plan: "pro" })
          const signalman = tokenClient(baseUrl, heidi)
          const target = yield* ok(() => signalman.targets.create({ name: "checkout", check: { type: "manual" } }))
          const declared = yield* ok(() =>
            signalman.incidents.declare({
              title: "Checkout slow",
              impact: "degraded",
              components: [target.id],
              message: "Looking into it"
            })
          )
          expect([declared.origin, declared.status]).toEqual(["declared", "open"])
          expect(declared.updates.map((u) => u.message)).toContain("Looking into it")
          expect((yield* ok(() => signalman.incidents.get(declared.id))).title).toBe("Checkout slow")
          const narrated = yield* ok(() =>
            signalman.incidents.update(declared.id, { public_title: "Slow checkout", severity: "minor" })
          )
          expect([narrated.public_title, narrated.severity]).toEqual(["Slow checkout", "minor"])
          const update = yield* ok(() =>
            signalman.incidents.postUpdate(declared.id, { phase: "identified", message: "A slow query" })
          )
          expect(update.phase).toBe("identified")
          expect((yield* ok(() => signalman.incidents.acknowledge(declared.id))).acknowledged_at).not.toBeNull()
          const resolved = yield* ok(() => signalman.incidents.resolve(declared.id))
          expect([resolved.status, resolved.close_reason]).toEqual(["closed", "resolved"])
          expect((yield* ok(() => signalman.incidents.deliveries(declared.id))).data).toEqual([])
          expect((yield* refused(() => signalman.incidents.postmortem(declared.id))).code).toBe("NOT_FOUND")
          yield* ok(() => signalman.incidents.putPostmortem(declared.id, { body: "# What happened" }))
          expect((yield* ok(() => signalman.incidents.postmortem(declared.id))).body).toBe("# What happened")
          const metrics = yield* ok(() => signalman.incidents.metrics({ target_id: target.id }))
          expect([metrics.incidents, metrics.closed]).toEqual([1, 1])
          const closed = yield* collect(signalman.incidents.list({ status: "closed" }))
          expect(closed.map((i) => i.id)).toEqual([declared.id])
          const periods = yield* collect(signalman.targets.incidents(target.id))
          expect(periods.map((p) => p.incident_ids)).toEqual([[declared.id]])
        })
    )

    it.effect("status pages, their components and logo, and the public endpoints and subscriptions of the page", () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* Fixture.server
        const ivan = yield* Fixture.person({ label: "sdk-pages", plan: "pro" })
        const signalman = tokenClient(baseUrl, ivan)
        const [a, b] = yield* Effect.all(
          ["Web", "API"].map((name) => ok(() => signalman.targets.create({ name, check: { type: "manual" } })))
        )
        if (a === undefined || b === undefined) return yield* Effect.dieMessage("no targets")
        const slug = unique("sdk")
        const page = yield* ok(() => signalman.statusPages.create({ slug, name: "Acme status", published: true }))
        expect(page.live_url.endsWith(`/p/${slug}`)).toBe(true)
        expect((yield* ok(() => signalman.statusPages.get(page.id))).name).toBe("Acme status")
        expect((yield* ok(() => signalman.statusPages.update(page.id, { name: "Acme" }))).name).toBe("Acme")
        expect((yield* collect(signalman.statusPages.list())).map((p) => p.id)).toEqual([page.id])

        yield* ok(() => signalman.statusPages.addComponent(page.id, { target_id: a.id }))
        yield* ok(() => signalman.statusPages.addComponent(page.id, { target_id: b.id, public_name: "Public API" }))
        const renamed = yield* ok(() =>
          signalman.statusPages.updateComponent({ id: page.id, target_id: a.id }, { public_name: "Website" })
        )
        expect(renamed.public_name).toBe("Website")
        const reordered = yield* ok(() =>
          signalman.statusPages.reorderComponents(page.id, { target_ids: [b.id, a.id] })
        )
        expect(reordered.data.map((c) => c.target_id)).toEqual([b.id, a.id])
        expect((yield* ok(() => signalman.statusPages.listComponents(page.id))).data.length).toBe(2)

        const withLogo = yield* ok(() =>
          signalman.statusPages.uploadLogo(page.id, { parts: { file: new Blob([PNG], { type: "image/png" }) } })
        )
        expect(withLogo.logo_url).not.toBeNull()
        expect((yield* ok(() => signalman.statusPages.removeLogo(page.id))).logo_url).toBeNull()
        expect((yield* collect(signalman.statusPages.listViewers(page.id))).length).toBe(0)
        expect((yield* ok(() => signalman.statusPages.passwordRecord(page.id))).enabled).toBe(false)
        expect((yield* ok(() => signalman.statusPages.passwordSignOut(page.id))).sessions).toBe(0)

        // The public surface needs no credentials.
        const visitor = createClient({ baseUrl })
        const status = yield* ok(() => visitor.public.status({ page: slug }))
        expect(status.components.map((c) => c.name)).toEqual(["Public API", "Website"])
        const history = yield* ok(() => visitor.public.history(a.id, { page: slug, days: 7 }))
        expect([history.days, history.bars.length]).toEqual([7, 7])
        expect((yield* collect(visitor.public.incidents({ page: slug }))).length).toBe(0)
        expect({ ...(yield* ok(() => visitor.public.maintenance({ page: slug }))) }).toEqual({
          active: [],
          upcoming: []
        })
        expect((yield* collect(visitor.public.pastMaintenance({ page: slug }))).length).toBe(0)
        const subscribed = yield* ok(() =>
          visitor.subscriptions.subscribe({ page: slug, email: `${unique("reader")}@example.com` })
        )
        expect(subscribed.message).toMatch(/.+/)
        const unknown = yield* refused(() => visitor.public.status({ page: unique("nope") }))
        expect([unknown.status, unknown.code]).toEqual([404, "NOT_FOUND"])

        expect(yield* ok(() => signalman.statusPages.removeComponent({ id: page.id, target_id: a.id }))).toBeUndefined()
        expect(yield* ok(() => signalman.statusPages.delete(page.id))).toBeUndefined()
        expect((yield* refused(() => signalman.statusPages.get(page.id))).code).toBe("NOT_FOUND")
      })
    )

    it.effect("me and orgs with a token; a session's client for tokens, sessions, orgs and invitations", () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* Fixture.server
        const judy = yield* Fixture.person({ label: "sdk-me", plan: "pro" })
        const signalman = tokenClient(baseUrl, judy)
        const me = yield* ok(() => signalman.me.get())
        expect(me.email).toBe(judy.email)
        expect((yield* ok(() => signalman.me.usage())).api_tokens.current).toBe(1)
        const orgs = yield* ok(() => signalman.orgs.list())
        expect(orgs.data.map((o) => o.id)).toEqual([judy.org.id])
        expect((yield* ok(() => signalman.orgs.get(judy.org.id))).slug).toBe(judy.org.slug)
        expect((yield* ok(() => signalman.orgs.usage(judy.org.id))).plan.id).toBe("pro")
        expect(yield* ok(() => signalman.orgs.support({ subject: "Hello", message: "From the SDK" }))).toBeUndefined()
        const tokenRefused = yield* refused(() => signalman.me.listTokens())
        expect([tokenRefused.status, tokenRefused.code]).toEqual([403, "SESSION_REQUIRED"])

        const session = sessionClient(baseUrl, judy)
        const minted = yield* ok(() => session.me.createToken({ name: "ci", scopes: ["targets:read"], org_id: null }))
        expect(minted.token).toMatch(/^sm_live_/)
        expect((yield* ok(() => session.me.renameToken(minted.id, { name: "ci-2" }))).name).toBe("ci-2")
        expect((yield* ok(() => session.me.listTokens())).data.map((t) => t.name).sort()).toEqual(["ci-2", "fixture"])
        // The new token is unbound: it names the org it acts on.
        const unbound = createClient({ baseUrl, token: minted.token, org: judy.org.slug })
        expect((yield* collect(unbound.targets.list())).length).toBe(0)
        expect(yield* ok(() => session.me.revokeToken(minted.id))).toBeUndefined()
        expect((yield* refused(() => unbound.targets.list())).code).toBe("UNAUTHENTICATED")
        expect((yield* ok(() => session.me.listSessions())).data.length).toBe(1)

        const org = yield* ok(() => session.orgs.create({ name: "Side project", slug: unique("side") }))
        expect(org.name).toBe("Side project")
        const invitation = yield* ok(() => session.orgs.invite(org.id, { email: `${unique("friend")}@example.com` }))
        expect((yield* ok(() => session.orgs.listInvitations(org.id))).data.map((i) => i.id)).toEqual([invitation.id])
        expect(
          yield* ok(() => session.orgs.revokeInvitation({ id: org.id, invitation_id: invitation.id }))
        ).toBeUndefined()
        expect((yield* ok(() => session.orgs.listInvitations(org.id))).data).toEqual([])
        expect(yield* ok(() => session.orgs.declineInvitation({ token: "no-such-invitation" }))).toBeUndefined()
        expect((yield* refused(() => session.orgs.acceptInvitation({ token: "no-such-invitation" }))).code).toBe(
          "NOT_FOUND"
        )

        const deleted = yield* ok(() => session.me.delete())
        expect(deleted.deletion_scheduled_for).not.toBeNull()
        expect((yield* ok(() => session.me.restore())).deletion_scheduled_for).toBeNull()
        expect((yield* ok(() => session.auth.requestMagicLink({ email: judy.email }))).sent).toBe(true)
        expect(yield* ok(() => session.auth.logout())).toBeUndefined()
        expect((yield* refused(() => session.me.get())).code).toBe("UNAUTHENTICATED")
      })
    )

    it.effect("refusals are SignalmanErrors with the envelope's fields; what the SDK sends shows in write_source", () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* Fixture.server
        const kim = yield* Fixture.person({ label: "sdk-errors" })
        const signalman = tokenClient(baseUrl, kim)

        const missing = yield* refused(() =>
          signalman.targets.get("0195f3e1-0000-7000-8000-000000000000", { headers: { "x-request-id": "sdk-test-1" } })
        )
        expect(missing).toBeInstanceOf(SignalmanError)
        expect([missing.status, missing.code, missing.traceId]).toEqual([404, "NOT_FOUND", "sdk-test-1"])
        const invalid = yield* refused(() => signalman.targets.create({ name: "", check: { type: "manual" } }))
        expect([invalid.status, invalid.code, invalid.field]).toEqual([400, "VALIDATION_FAILED", "name"])
        const misspelt = yield* refused(() =>
          // @ts-expect-error: a misspelt field is a compile error; sent anyway, the service refuses it too.
          signalman.targets.create({ name: "x", check: { type: "manual" }, intervall: 60 })
        )
        expect([misspelt.status, misspelt.code, misspelt.field]).toEqual([422, "INVALID_JSON", "intervall"])
        expect(misspelt.details["accepted"]).toContain("interval")
        const badToken = yield* refused(() => createClient({ baseUrl, token: "sm_live_nope" }).me.get())
        expect([badToken.status, badToken.code]).toEqual([401, "UNAUTHENTICATED"])
        const otherOrg = yield* refused(() => tokenClient(baseUrl, kim, { org: "someone-else" }).targets.list())
        expect([otherOrg.status, otherOrg.code]).toEqual([403, "ORG_HEADER_MISMATCH"])

        const viaSdk = yield* ok(() => signalman.targets.create({ name: "by sdk", check: { type: "manual" } }))
        expect(viaSdk.write_source).toBe("api")
        const cli = tokenClient(baseUrl, kim, { userAgent: "signalman-cli/0.1.0" })
        expect((yield* ok(() => cli.targets.update(viaSdk.id, { name: "by cli" }))).write_source).toBe("iac")

        // The same Idempotency-Key replays the first answer: one monitor, not two.
        const key = unique("idem")
        const once = yield* ok(() =>
          signalman.targets.create({ name: "once", check: { type: "manual" } }, { idempotencyKey: key })
        )
        const twice = yield* ok(() =>
          signalman.targets.create({ name: "once", check: { type: "manual" } }, { idempotencyKey: key })
        )
        expect(twice.id).toBe(once.id)
        const reused = yield* refused(() =>
          signalman.targets.create({ name: "another", check: { type: "manual" } }, { idempotencyKey: key })
        )
        expect(reused.code).toBe("IDEMPOTENCY_KEY_REUSED")
      })
    )
  }
)
