/**
 * On-call over HTTP: schedules and escalation policies (every route), who is on call and the shifts across a
 * daylight-saving change with an override, refusals with their field paths, the gates (on_call_enabled, owner,
 * oncall scopes), the two quotas pooled per account, deletes refused while in use, the org's default policy, and a
 * monitor's escalation_policy_id on create, PATCH, bulk create, the bulk action and duplicate rule 3.
 */
import { assert, expect } from "@effect/vitest"
import { DefaultEscalationPolicy, EscalationPolicyPage, SchedulePage, ShiftList } from "@signalman/core/api/OnCall"
import { TargetBatch } from "@signalman/core/api/Targets"
import { CreatedChannel } from "@signalman/core/Channel"
import { Org, OrgUsage } from "@signalman/core/Identity"
import { EscalationPolicy } from "@signalman/core/oncall/EscalationPolicy"
import { OnCallAnswer, Schedule } from "@signalman/core/oncall/Schedule"
import { Target } from "@signalman/core/Target"
import * as Effect from "effect/Effect"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import { bearer, mintToken } from "../support/Identity.js"
import * as TestDatabase from "../support/TestDatabase.js"

// Three of each per account on the on-call plan, so the quota tests reach the limit in a few requests.
const LIMIT = 3
const sql = [
  `UPDATE plans SET max_on_call_schedules = ${LIMIT}, max_escalation_policies = ${LIMIT}, max_orgs = 3 WHERE id = 'pro'`
]

const SCHEDULES = "/api/v1/oncall/schedules"
const POLICIES = "/api/v1/oncall/escalation-policies"
const DEFAULT = "/api/v1/oncall/default-escalation-policy"

/** An owner on the plan with on-call, and a member of their org (invited and accepted) with a token of their own. */
const team = Effect.gen(function* () {
  const server = yield* Fixture.server
  const smtp = yield* Fixture.smtp
  const owner = yield* Fixture.person({ label: "owner", plan: "pro" })
  const member = yield* Fixture.person({ label: "member" })
  const before = smtp.mails().filter((m) => m.to === member.email).length
  const invited = yield* owner.browser.request(`/api/v1/orgs/${owner.org.id}/invitations`, {
    json: { email: member.email, role: "member" }
  })
  expect(invited.status).toBe(201)
  const mails = yield* Effect.promise(() => smtp.waitFor(member.email, before + 1))
  const token = /accept\?token=([A-Za-z0-9_-]+)/.exec(mails[before]?.text ?? "")?.[1]
  const accepted = yield* member.browser.request("/api/v1/invitations/accept", { json: { token } })
  expect(accepted.status).toBe(200)
  // An unbound token naming the owner's org: the member's own sign-in predates the membership.
  const memberToken = yield* mintToken(member, { name: "unbound" })
  const asMember = (path: string, init: RequestInit & { readonly json?: unknown } = {}) => {
    const headers = new Headers(init.headers)
    headers.set("x-signalman-org", owner.org.slug)
    return bearer(server, memberToken.token, path, { ...init, headers })
  }
  return { server, owner, member, asMember }
})

const layer = (participants: ReadonlyArray<string>) => ({
  name: "Primary",
  starts_at: "2026-03-27T08:00:00Z",
  rotation: { length: { unit: "days", count: 1 }, handoff: "09:00" },
  participants
})

const policyBody = (steps: ReadonlyArray<ReadonlyArray<{ readonly type: string; readonly id: string }>>) => ({
  name: "Default escalation",
  steps: steps.map((targets, i) => ({ delay_minutes: i * 10, targets })),
  repeat: 1
})

const monitor = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  check: { type: "http", url: "https://example.com/health" },
  enabled: false,
  ...extra
})

Fixture.describe(`on-call API (${TestDatabase.kind} database)`, { sql }, (it) => {
  it.effect("schedules: create (201, Location), get, list paged, PATCH, DELETE; another org's is 404", () =>
    Effect.gen(function* () {
      const { owner, member } = yield* team
      const created = yield* owner.api(SCHEDULES, {
        json: { name: " Ops ", time_zone: "Europe/Berlin", layers: [layer([owner.userId, member.userId])] }
      })
      const schedule = Http.expectOk(created, Schedule, 201)
      expect(created.headers.get("location")).toBe(`${SCHEDULES}/${schedule.id}`)
      expect(schedule.name).toBe("Ops")
      expect(schedule.layers[0]?.participants).toEqual([owner.userId, member.userId])
      expect(schedule.layers[0]?.restrictions).toEqual([])
      expect(schedule.overrides).toEqual([])

      const second = Http.expectOk(
        yield* owner.api(SCHEDULES, { json: { name: "Second", time_zone: "UTC" } }),
        Schedule,
        201
      )
      const page = Http.decode(yield* owner.api(`${SCHEDULES}?limit=1&offset=1`), SchedulePage)
      expect({ total: page.total, limit: page.limit, offset: page.offset }).toEqual({ total: 2, limit: 1, offset: 1 })
      expect(page.data.map((s) => s.id)).toEqual([second.id])

      expect(Http.decode(yield* owner.api(`${SCHEDULES}/${schedule.id}`), Schedule).id).toBe(schedule.id)
      const patched = Http.expectOk(
        yield* owner.api(`${SCHEDULES}/${schedule.id}`, {
          method: "PATCH",
          json: {
            name: "Ops renamed",
            overrides: [
              { user_id: member.userId, starts_at: "2026-04-01T00:00:00Z", ends_at: "2026-04-02T00:00:00+02:00" }
            ]
          }
        }),
        Schedule
      )
      expect(patched.name).toBe("Ops renamed")
      expect(patched.time_zone).toBe("Europe/Berlin")
      expect(patched.layers).toHaveLength(1)
      expect(patched.overrides).toHaveLength(1)

      // Another org's schedule answers as one that does not exist, on every route.
      const stranger = yield* Fixture.person({ label: "stranger", plan: "pro" })
      for (const path of ["", "/on-call", "/shifts"]) {
        expect(Http.refusal(yield* stranger.api(`${SCHEDULES}/${schedule.id}${path}`)).code, path).toBe("NOT_FOUND")
      }
      expect(Http.refusal(yield* stranger.api(`${SCHEDULES}/${schedule.id}`, { method: "DELETE" })).status).toBe(404)

      expect((yield* owner.api(`${SCHEDULES}/${second.id}`, { method: "DELETE" })).status).toBe(204)
      expect((yield* owner.api(`${SCHEDULES}/${second.id}`)).status).toBe(404)
      expect(Http.decode(yield* owner.api(SCHEDULES), SchedulePage).total).toBe(1)

      // Every write is audited.
      const server = yield* Fixture.server
      const events = yield* server.sql<{ event: string }>`
        SELECT event FROM audit_events WHERE org_id = ${owner.org.id} AND event LIKE 'oncall.%' ORDER BY created_at, id
      `.pipe(Effect.orDie)
      expect(events.map((e) => e.event)).toEqual([
        "oncall.schedule_created",
        "oncall.schedule_created",
        "oncall.schedule_updated",
        "oncall.schedule_deleted"
      ])
    })
  )

  it.effect("who is on call and the shifts across the Berlin spring-forward night, an override winning", () =>
    Effect.gen(function* () {
      const { owner, member } = yield* team
      const schedule = Http.expectOk(
        yield* owner.api(SCHEDULES, {
          json: {
            name: "Berlin",
            time_zone: "Europe/Berlin",
            layers: [layer([owner.userId, member.userId])],
            overrides: [{ user_id: member.userId, starts_at: "2026-03-27T12:00:00Z", ends_at: "2026-03-27T14:00:00Z" }]
          }
        }),
        Schedule,
        201
      )
      const onCall = (at: string) =>
        Effect.map(owner.api(`${SCHEDULES}/${schedule.id}/on-call?at=${encodeURIComponent(at)}`), (reply) =>
          Http.wire(reply, OnCallAnswer)
        )
      expect(yield* onCall("2026-03-27T10:00:00Z")).toEqual({
        at: "2026-03-27T10:00:00.000Z",
        user_id: owner.userId,
        layer: 0
      })
      // The override beats the layer.
      expect(yield* onCall("2026-03-27T13:00:00+00:00")).toMatchObject({ user_id: member.userId, layer: null })
      // Before the layer starts, nobody.
      expect(yield* onCall("2026-03-27T07:59:59Z")).toMatchObject({ user_id: null, layer: null })

      const reply = yield* owner.api(
        `${SCHEDULES}/${schedule.id}/shifts?from=2026-03-27T08:00:00Z&to=2026-03-31T07:00:00Z`
      )
      const shifts = Http.wire(reply, ShiftList).data.map((s) => [s.user_id, s.starts_at, s.ends_at, s.layer])
      expect(shifts).toEqual([
        [owner.userId, "2026-03-27T08:00:00.000Z", "2026-03-27T12:00:00.000Z", 0],
        [member.userId, "2026-03-27T12:00:00.000Z", "2026-03-27T14:00:00.000Z", null],
        [owner.userId, "2026-03-27T14:00:00.000Z", "2026-03-28T08:00:00.000Z", 0],
        // 09:00 CET to 09:00 CEST: the clocks went forward, so this shift is 23 hours.
        [member.userId, "2026-03-28T08:00:00.000Z", "2026-03-29T07:00:00.000Z", 0],
        [owner.userId, "2026-03-29T07:00:00.000Z", "2026-03-30T07:00:00.000Z", 0],
        [member.userId, "2026-03-30T07:00:00.000Z", "2026-03-31T07:00:00.000Z", 0]
      ])

      // A member who leaves is on call no more: the rotation goes on among the others.
      const server = yield* Fixture.server
      yield* server.sql`DELETE FROM memberships WHERE org_id = ${owner.org.id} AND user_id = ${member.userId}`.pipe(
        Effect.orDie
      )
      expect(yield* onCall("2026-03-27T13:00:00Z")).toMatchObject({ user_id: owner.userId, layer: 0 })

      // The window: to after from, at most 90 days; instants need a zone.
      const refused = (query: string) =>
        Effect.map(owner.api(`${SCHEDULES}/${schedule.id}/shifts?${query}`), Http.refusal)
      expect(yield* refused("from=2026-03-27T08:00:00Z&to=2026-03-27T08:00:00Z")).toEqual({
        status: 400,
        code: "VALIDATION_FAILED",
        field: "to"
      })
      expect(yield* refused("from=2026-01-01T00:00:00Z&to=2026-04-01T00:00:01Z")).toEqual({
        status: 400,
        code: "VALIDATION_FAILED",
        field: "to"
      })
      expect(
        (yield* owner.api(`${SCHEDULES}/${schedule.id}/shifts?from=2026-01-01T00:00:00Z&to=2026-04-01T00:00:00Z`))
          .status
      ).toBe(200)
      expect((yield* refused("from=2026-03-27T08:00:00")).status).toBe(400)
      expect((yield* owner.api(`${SCHEDULES}/${schedule.id}/on-call?at=yesterday`)).status).toBe(400)
      // Without a window, from now for 14 days.
      const now = Http.wire(yield* owner.api(`${SCHEDULES}/${schedule.id}/shifts`), ShiftList)
      expect(Date.parse(now.to) - Date.parse(now.from)).toBe(14 * 24 * 3600 * 1000)
    })
  )

  it.effect("schedule refusals name the field: zone, times, non-members, unknown keys", () =>
    Effect.gen(function* () {
      const { owner, member } = yield* team
      const outsider = yield* Fixture.person({ label: "outsider" })
      const create = (body: Record<string, unknown>) => Effect.map(owner.api(SCHEDULES, { json: body }), Http.refusal)
      expect(yield* create({ name: "x", time_zone: "Mars/Olympus" })).toEqual({
        status: 400,
        code: "VALIDATION_FAILED",
        field: "time_zone"
      })
      expect(yield* create({ name: "x", time_zone: "UTC", layers: [layer([member.userId, outsider.userId])] })).toEqual(
        { status: 400, code: "VALIDATION_FAILED", field: "layers[0].participants[1]" }
      )
      const override = { user_id: outsider.userId, starts_at: "2026-04-01T00:00:00Z", ends_at: "2026-04-02T00:00:00Z" }
      expect(yield* create({ name: "x", time_zone: "UTC", overrides: [override] })).toEqual({
        status: 400,
        code: "VALIDATION_FAILED",
        field: "overrides[0].user_id"
      })
      const backwards = { ...override, user_id: member.userId, ends_at: "2026-03-01T00:00:00Z" }
      expect((yield* create({ name: "x", time_zone: "UTC", overrides: [backwards] })).field).toBe(
        "overrides[0].ends_at"
      )
      const badHandoff = {
        ...layer([member.userId]),
        rotation: { length: { unit: "days", count: 1 }, handoff: "25:00" }
      }
      expect((yield* create({ name: "x", time_zone: "UTC", layers: [badHandoff] })).field).toBe(
        "layers[0].rotation.handoff"
      )
      expect(yield* create({ name: "x", time_zone: "UTC", colour: "red" })).toMatchObject({
        status: 422,
        code: "INVALID_JSON",
        field: "colour"
      })
      const schedule = Http.expectOk(
        yield* owner.api(SCHEDULES, { json: { name: "ok", time_zone: "UTC" } }),
        Schedule,
        201
      )
      const patch = yield* owner.api(`${SCHEDULES}/${schedule.id}`, {
        method: "PATCH",
        json: { layers: [layer([outsider.userId])] }
      })
      expect(Http.refusal(patch)).toEqual({
        status: 400,
        code: "VALIDATION_FAILED",
        field: "layers[0].participants[0]"
      })
    })
  )

  it.effect("policies: every route; step targets must be the org's; deletes refused while in use; the default", () =>
    Effect.gen(function* () {
      const { owner, member } = yield* team
      const outsider = yield* Fixture.person({ label: "outsider", plan: "pro" })
      const schedule = Http.expectOk(
        yield* owner.api(SCHEDULES, { json: { name: "Rota", time_zone: "UTC", layers: [layer([member.userId])] } }),
        Schedule,
        201
      )
      const channel = Http.expectOk(
        yield* owner.api("/api/v1/channels", {
          json: { name: "ops mail", kind: "email", config: { addresses: ["ops@example.com"] } }
        }),
        CreatedChannel,
        201
      )
      const foreignChannel = Http.expectOk(
        yield* outsider.api("/api/v1/channels", {
          json: { name: "theirs", kind: "email", config: { addresses: ["them@example.com"] } }
        }),
        CreatedChannel,
        201
      )
      const steps = [
        [{ type: "schedule", id: schedule.id.toUpperCase() }],
        [
          { type: "user", id: owner.userId },
          { type: "channel", id: channel.id }
        ]
      ]
      const created = yield* owner.api(POLICIES, { json: policyBody(steps) })
      const policy = Http.expectOk(created, EscalationPolicy, 201)
      expect(created.headers.get("location")).toBe(`${POLICIES}/${policy.id}`)
      expect(policy.steps.map((s) => s.delay_minutes)).toEqual([0, 10])
      expect(policy.steps[0]?.targets[0]?.id).toBe(schedule.id)
      expect(policy.repeat).toBe(1)
      expect(Http.decode(yield* owner.api(`${POLICIES}/${policy.id}`), EscalationPolicy).name).toBe(
        "Default escalation"
      )
      expect(Http.decode(yield* owner.api(POLICIES), EscalationPolicyPage).data.map((p) => p.id)).toEqual([policy.id])

      // Each kind of target must exist in the org; the refusal names the step and target.
      const refused = (targets: ReadonlyArray<{ readonly type: string; readonly id: string }>) =>
        Effect.map(
          owner.api(POLICIES, { json: policyBody([[{ type: "user", id: member.userId }], targets]) }),
          Http.refusal
        )
      expect(yield* refused([{ type: "user", id: outsider.userId }])).toEqual({
        status: 400,
        code: "VALIDATION_FAILED",
        field: "steps[1].targets[0].id"
      })
      expect(
        yield* refused([
          { type: "channel", id: channel.id },
          { type: "channel", id: foreignChannel.id }
        ])
      ).toEqual({
        status: 400,
        code: "VALIDATION_FAILED",
        field: "steps[1].targets[1].id"
      })
      expect((yield* refused([{ type: "schedule", id: channel.id }])).field).toBe("steps[1].targets[0].id")
      expect((yield* owner.api(POLICIES, { json: { name: "none", steps: [] } })).status).toBe(400)
      expect(
        Http.refusal(
          yield* owner.api(POLICIES, { json: { ...policyBody([[{ type: "user", id: member.userId }]]), repeat: 6 } })
        ).field
      ).toBe("repeat")

      // PATCH replaces the steps whole, judged alike.
      const patched = Http.expectOk(
        yield* owner.api(`${POLICIES}/${policy.id}`, { method: "PATCH", json: { repeat: 0, name: "Renamed" } }),
        EscalationPolicy
      )
      expect([patched.name, patched.repeat, patched.steps.length]).toEqual(["Renamed", 0, 2])
      const badPatch = yield* owner.api(`${POLICIES}/${policy.id}`, {
        method: "PATCH",
        json: { steps: [{ delay_minutes: 0, targets: [{ type: "schedule", id: outsider.userId }] }] }
      })
      expect(Http.refusal(badPatch).field).toBe("steps[0].targets[0].id")

      // A schedule a step names cannot go; the refusal lists the policies.
      const inUse = yield* owner.api(`${SCHEDULES}/${schedule.id}`, { method: "DELETE" })
      expect(Http.refusal(inUse)).toEqual({ status: 409, code: "SCHEDULE_IN_USE", field: null })
      expect(Http.envelope(inUse).details).toEqual({ escalation_policies: [{ id: policy.id, name: "Renamed" }] })

      // The default: set, read, refused for a foreign policy, and then the policy cannot be deleted.
      expect(Http.decode(yield* owner.api(DEFAULT), DefaultEscalationPolicy).escalation_policy_id).toBeNull()
      const set = yield* owner.api(DEFAULT, { method: "PUT", json: { escalation_policy_id: policy.id } })
      expect(Http.decode(set, DefaultEscalationPolicy).escalation_policy_id).toBe(policy.id)
      const theirs = Http.expectOk(
        yield* outsider.api(POLICIES, { json: policyBody([[{ type: "user", id: outsider.userId }]]) }),
        EscalationPolicy,
        201
      )
      expect(
        Http.refusal(yield* owner.api(DEFAULT, { method: "PUT", json: { escalation_policy_id: theirs.id } }))
      ).toEqual({ status: 400, code: "VALIDATION_FAILED", field: "escalation_policy_id" })
      const asDefault = yield* owner.api(`${POLICIES}/${policy.id}`, { method: "DELETE" })
      expect(Http.refusal(asDefault).code).toBe("ESCALATION_POLICY_IN_USE")
      expect(Http.envelope(asDefault).details).toEqual({ target_ids: [], default: true })
      yield* owner.api(DEFAULT, { method: "PUT", json: { escalation_policy_id: null } })

      // Bound to a monitor, it cannot go either; unbound, it can, and then the schedule too.
      const bound = Http.expectOk(
        yield* owner.api("/api/v1/targets", { json: monitor("bound", { escalation_policy_id: policy.id }) }),
        Target,
        201
      )
      const byMonitor = yield* owner.api(`${POLICIES}/${policy.id}`, { method: "DELETE" })
      expect(Http.refusal(byMonitor)).toEqual({ status: 409, code: "ESCALATION_POLICY_IN_USE", field: null })
      expect(Http.envelope(byMonitor).details).toEqual({ target_ids: [bound.id], default: false })
      yield* owner.api(`/api/v1/targets/${bound.id}`, { method: "PATCH", json: { escalation_policy_id: null } })
      expect((yield* owner.api(`${POLICIES}/${policy.id}`, { method: "DELETE" })).status).toBe(204)
      expect((yield* owner.api(`${POLICIES}/${policy.id}`)).status).toBe(404)
      expect((yield* owner.api(`${SCHEDULES}/${schedule.id}`, { method: "DELETE" })).status).toBe(204)
    })
  )

  it.effect("gates: a plan without on-call is 403 ON_CALL_DISABLED, a member OWNER_REQUIRED, scopes apply", () =>
    Effect.gen(function* () {
      const server = yield* Fixture.server
      const { owner, asMember } = yield* team
      const free = yield* Fixture.person({ label: "free" })
      const body = { name: "Rota", time_zone: "UTC" }

      const off = yield* free.api(SCHEDULES, { json: body })
      expect(Http.refusal(off)).toEqual({ status: 403, code: "ON_CALL_DISABLED", field: null })
      expect(Http.envelope(off).details).toEqual({ flag: "on_call_enabled", plan: "free" })
      expect(
        Http.refusal(yield* free.api(POLICIES, { json: policyBody([[{ type: "user", id: free.userId }]]) })).code
      ).toBe("ON_CALL_DISABLED")
      expect(Http.refusal(yield* free.api(DEFAULT, { method: "PUT", json: { escalation_policy_id: null } })).code).toBe(
        "ON_CALL_DISABLED"
      )
      // Reading is not gated by the plan: what was made before a downgrade stays visible.
      expect((yield* free.api(SCHEDULES)).status).toBe(200)

      // A member reads but does not write.
      const schedule = Http.expectOk(yield* owner.api(SCHEDULES, { json: body }), Schedule, 201)
      expect((yield* asMember(`${SCHEDULES}/${schedule.id}`)).status).toBe(200)
      for (const [method, path, json] of [
        ["POST", SCHEDULES, body],
        ["PATCH", `${SCHEDULES}/${schedule.id}`, { name: "x" }],
        ["DELETE", `${SCHEDULES}/${schedule.id}`, undefined],
        ["POST", POLICIES, policyBody([[{ type: "schedule", id: schedule.id }]])],
        ["PUT", DEFAULT, { escalation_policy_id: null }]
      ] as const) {
        const reply = yield* asMember(path, { method, ...(json === undefined ? {} : { json }) })
        expect(Http.refusal(reply), `${method} ${path}`).toEqual({ status: 403, code: "OWNER_REQUIRED", field: null })
      }

      // Tokens: oncall:read reads and cannot write; a token without the oncall scope cannot read.
      const reader = yield* mintToken(owner, { name: "reader", org_id: owner.org.id, scopes: ["oncall:read"] })
      const other = yield* mintToken(owner, { name: "other", org_id: owner.org.id, scopes: ["targets:read"] })
      const writer = yield* mintToken(owner, { name: "writer", org_id: owner.org.id, scopes: ["oncall:write"] })
      expect((yield* bearer(server, reader.token, `${SCHEDULES}/${schedule.id}/on-call`)).status).toBe(200)
      expect((yield* bearer(server, reader.token, POLICIES)).status).toBe(200)
      const readerWrite = yield* bearer(server, reader.token, SCHEDULES, { json: body })
      expect(Http.refusal(readerWrite)).toMatchObject({ status: 403, code: "INSUFFICIENT_SCOPE" })
      expect(Http.envelope(readerWrite).details).toEqual({ required: "oncall:write" })
      expect(Http.refusal(yield* bearer(server, other.token, SCHEDULES)).code).toBe("INSUFFICIENT_SCOPE")
      expect(Http.refusal(yield* bearer(server, other.token, DEFAULT)).code).toBe("INSUFFICIENT_SCOPE")
      // oncall:write implies read.
      expect(
        (yield* bearer(server, writer.token, `${SCHEDULES}/${schedule.id}`, { method: "PATCH", json: { name: "w" } }))
          .status
      ).toBe(200)
      expect((yield* bearer(server, writer.token, SCHEDULES)).status).toBe(200)
    })
  )

  it.effect("quotas pool across the account's orgs; concurrent creates settle exactly at the limit", () =>
    Effect.gen(function* () {
      const server = yield* Fixture.server
      const owner = yield* Fixture.person({ label: "quota", plan: "pro" })
      const second = yield* owner.browser.request("/api/v1/orgs", {
        json: { name: "Second", slug: `second-${Date.now().toString(36)}` }
      })
      expect(second.status).toBe(201)
      const secondSlug = Http.decode(second, Org).slug
      const inSecond = (path: string, init: RequestInit & { readonly json?: unknown } = {}) =>
        owner.browser.request(path, { ...init, headers: { "x-signalman-org": secondSlug } })

      // One in the second org, then five at once in the first: exactly two more fit.
      expect((yield* inSecond(SCHEDULES, { json: { name: "s0", time_zone: "UTC" } })).status).toBe(201)
      const replies = yield* Effect.forEach(
        Array.from({ length: 5 }, (_, i) => i),
        (i) => owner.api(SCHEDULES, { json: { name: `s${i + 1}`, time_zone: "UTC" } }),
        { concurrency: "unbounded" }
      )
      expect(replies.filter((r) => r.status === 201)).toHaveLength(LIMIT - 1)
      const refused = replies.filter((r) => r.status === 422)
      expect(refused).toHaveLength(5 - (LIMIT - 1))
      assert.isDefined(refused[0])
      expect(Http.envelope(refused[0])).toMatchObject({
        code: "QUOTA_EXCEEDED",
        field: null,
        details: { quota: "max_on_call_schedules", current: LIMIT, limit: LIMIT, plan: "pro" }
      })

      const step = [[{ type: "user", id: owner.userId }]]
      for (let i = 0; i < LIMIT - 1; i++) {
        expect((yield* owner.api(POLICIES, { json: policyBody(step) })).status).toBe(201)
      }
      expect((yield* inSecond(POLICIES, { json: policyBody(step) })).status).toBe(201)
      const over = yield* inSecond(POLICIES, { json: policyBody(step) })
      expect(Http.envelope(over)).toMatchObject({
        code: "QUOTA_EXCEEDED",
        details: { quota: "max_escalation_policies", current: LIMIT, limit: LIMIT }
      })
      const events = yield* server.sql<{ name: string; n: number }>`
        SELECT name, count(*)::int AS n FROM quota_events WHERE account_id = ${owner.accountId} GROUP BY name ORDER BY name
      `.pipe(Effect.orDie)
      expect(events).toEqual([
        { name: "max_escalation_policies", n: 1 },
        { name: "max_on_call_schedules", n: 5 - (LIMIT - 1) }
      ])
      const usage = Http.decode(yield* owner.browser.request(`/api/v1/orgs/${owner.org.id}/usage`), OrgUsage)
      expect(usage.quotas["max_on_call_schedules"]).toEqual({ current: LIMIT, limit: LIMIT })
      expect(usage.quotas["max_escalation_policies"]).toEqual({ current: LIMIT, limit: LIMIT })

      // A delete frees a place.
      const page = Http.decode(yield* owner.api(SCHEDULES), SchedulePage)
      expect((yield* owner.api(`${SCHEDULES}/${page.data[0]?.id}`, { method: "DELETE" })).status).toBe(204)
      expect((yield* owner.api(SCHEDULES, { json: { name: "again", time_zone: "UTC" } })).status).toBe(201)
    })
  )

  it.effect("a monitor's escalation_policy_id: create, the org default, PATCH, bulk create, the bulk action", () =>
    Effect.gen(function* () {
      const server = yield* Fixture.server
      const { owner, member, asMember } = yield* team
      const step = [[{ type: "user", id: member.userId }]]
      const first = Http.expectOk(yield* owner.api(POLICIES, { json: policyBody(step) }), EscalationPolicy, 201)
      const second = Http.expectOk(yield* owner.api(POLICIES, { json: policyBody(step) }), EscalationPolicy, 201)
      const outsider = yield* Fixture.person({ label: "outsider", plan: "pro" })
      const foreign = Http.expectOk(
        yield* outsider.api(POLICIES, { json: policyBody([[{ type: "user", id: outsider.userId }]]) }),
        EscalationPolicy,
        201
      )
      const create = (as: typeof owner.api, extra: Record<string, unknown>) =>
        as("/api/v1/targets", { json: monitor("m", extra) })

      // Named, by the owner; none when no default; a foreign or unknown policy names the field.
      const bound = Http.expectOk(yield* create(owner.api, { escalation_policy_id: first.id }), Target, 201)
      expect(bound.escalation_policy_id).toBe(first.id)
      expect(Http.expectOk(yield* create(owner.api, {}), Target, 201).escalation_policy_id).toBeNull()
      expect(Http.refusal(yield* create(owner.api, { escalation_policy_id: foreign.id }))).toEqual({
        status: 400,
        code: "VALIDATION_FAILED",
        field: "escalation_policy_id"
      })

      // With a default, a create that names none takes it; a member may create so, but not name another.
      yield* owner.api(DEFAULT, { method: "PUT", json: { escalation_policy_id: second.id } })
      expect(Http.expectOk(yield* create(owner.api, {}), Target, 201).escalation_policy_id).toBe(second.id)
      expect(Http.expectOk(yield* create(asMember, {}), Target, 201).escalation_policy_id).toBe(second.id)
      expect(
        Http.expectOk(yield* create(asMember, { escalation_policy_id: second.id }), Target, 201).escalation_policy_id
      ).toBe(second.id)
      expect(Http.refusal(yield* create(asMember, { escalation_policy_id: first.id }))).toEqual({
        status: 403,
        code: "OWNER_REQUIRED",
        field: "escalation_policy_id"
      })
      expect(Http.refusal(yield* create(asMember, { escalation_policy_id: null })).code).toBe("OWNER_REQUIRED")
      const targetsOnly = yield* mintToken(owner, { name: "targets", org_id: owner.org.id, scopes: ["targets:write"] })
      const viaToken = yield* bearer(server, targetsOnly.token, "/api/v1/targets", {
        json: monitor("t", { escalation_policy_id: first.id })
      })
      expect(Http.refusal(viaToken)).toEqual({ status: 403, code: "INSUFFICIENT_SCOPE", field: "escalation_policy_id" })

      // PATCH: sending the stored value back is no on-call write; changing it is.
      const patch = (as: typeof owner.api, json: Record<string, unknown>) =>
        as(`/api/v1/targets/${bound.id}`, { method: "PATCH", json })
      expect((yield* patch(asMember, { name: "renamed", escalation_policy_id: first.id })).status).toBe(200)
      expect(Http.refusal(yield* patch(asMember, { escalation_policy_id: second.id }))).toEqual({
        status: 403,
        code: "OWNER_REQUIRED",
        field: "escalation_policy_id"
      })
      expect(
        Http.expectOk(yield* patch(owner.api, { escalation_policy_id: second.id }), Target).escalation_policy_id
      ).toBe(second.id)
      expect(
        Http.expectOk(yield* patch(owner.api, { escalation_policy_id: null }), Target).escalation_policy_id
      ).toBeNull()
      expect(Http.refusal(yield* patch(owner.api, { escalation_policy_id: foreign.id })).field).toBe(
        "escalation_policy_id"
      )

      // Bulk create: each item judged alike, the refusal naming the item.
      const bulk = yield* owner.api("/api/v1/targets/bulk", {
        json: { targets: [monitor("b0"), monitor("b1", { escalation_policy_id: first.id })] }
      })
      expect(Http.decode(bulk, TargetBatch).data.map((t) => t.escalation_policy_id)).toEqual([second.id, first.id])
      const badBulk = yield* owner.api("/api/v1/targets/bulk", {
        json: { targets: [monitor("b2"), monitor("b3", { escalation_policy_id: foreign.id })] }
      })
      expect(Http.refusal(badBulk)).toEqual({
        status: 400,
        code: "VALIDATION_FAILED",
        field: "targets[1].escalation_policy_id"
      })

      // The bulk action binds (or with null unbinds) many at once, owners only.
      const ids = Http.decode(bulk, TargetBatch).data.map((t) => t.id)
      const action = (as: typeof owner.api, escalation_policy_id: string | null) =>
        as("/api/v1/targets/bulk-action", { json: { action: "set-escalation-policy", ids, escalation_policy_id } })
      expect(Http.refusal(yield* action(asMember, first.id)).code).toBe("OWNER_REQUIRED")
      expect((yield* action(owner.api, first.id)).status).toBe(200)
      const rows = yield* server.sql<{ p: string | null }>`
        SELECT escalation_policy_id::text AS p FROM targets WHERE id = ANY(${ids}::uuid[])
      `.pipe(Effect.orDie)
      expect(rows.map((r) => r.p)).toEqual([first.id, first.id])
      expect((yield* action(owner.api, null)).status).toBe(200)
      expect(Http.refusal(yield* action(owner.api, foreign.id))).toMatchObject({
        status: 400,
        code: "VALIDATION_FAILED"
      })
      const missing = yield* owner.api("/api/v1/targets/bulk-action", {
        json: { action: "set-escalation-policy", ids }
      })
      expect(Http.refusal(missing)).toEqual({ status: 400, code: "VALIDATION_FAILED", field: "escalation_policy_id" })
    })
  )

  it.effect(
    "duplicate rule 3: an owner with oncall:write on an on-call plan copies the policy; others get the default",
    () =>
      Effect.gen(function* () {
        const server = yield* Fixture.server
        const { owner, member, asMember } = yield* team
        const step = [[{ type: "user", id: member.userId }]]
        const own = Http.expectOk(yield* owner.api(POLICIES, { json: policyBody(step) }), EscalationPolicy, 201)
        const fallback = Http.expectOk(yield* owner.api(POLICIES, { json: policyBody(step) }), EscalationPolicy, 201)
        const source = Http.expectOk(
          yield* owner.api("/api/v1/targets", { json: monitor("source", { escalation_policy_id: own.id }) }),
          Target,
          201
        )
        const duplicate = (send: (path: string, init: { readonly json: unknown }) => Effect.Effect<Http.Reply>) =>
          Effect.map(
            send(`/api/v1/targets/${source.id}/duplicate`, { json: { copies: [{ name: "copy" }] } }),
            (reply) => Http.expectOk(reply, TargetBatch, 201).data[0]?.escalation_policy_id
          )

        // No default yet: a caller who may not copy the policy gets none.
        expect(yield* duplicate(owner.api)).toBe(own.id)
        expect(yield* duplicate(asMember)).toBeNull()
        yield* owner.api(DEFAULT, { method: "PUT", json: { escalation_policy_id: fallback.id } })
        expect(yield* duplicate(asMember)).toBe(fallback.id)
        // The owner's token without oncall:write follows the default too.
        const targetsOnly = yield* mintToken(owner, {
          name: "targets",
          org_id: owner.org.id,
          scopes: ["targets:write"]
        })
        expect(yield* duplicate((path, init) => bearer(server, targetsOnly.token, path, init))).toBe(fallback.id)
      })
  )
})
