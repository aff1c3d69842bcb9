/**
 * The on-call pages (`GET /on-call`, `/on-call/schedules/new`, `/on-call/schedules/<id>`, `/on-call/policies/new`,
 * `/on-call/policies/<id>`), read through the services the `oncall` API group calls (`Schedules`,
 * `EscalationPolicies`), scoped to the viewer's org (another org's schedule is the same 404 as none). Who may write
 * is the API's own gate (`Access`); every write is the page's form or button sending the API request.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { DEFAULT_SHIFT_WINDOW_DAYS } from "@signalman/core/api/OnCall"
import { EscalationPolicyId } from "@signalman/core/oncall/EscalationPolicy"
import { ScheduleId } from "@signalman/core/oncall/Schedule"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { Channels } from "../../channels/Channels.js"
import type { Route } from "../../http/RouteTable.js"
import { Plans } from "../../limits/Plans.js"
import { EscalationPolicies, notFound as noPolicy } from "../../oncall/EscalationPolicies.js"
import { notFound as noSchedule, Schedules } from "../../oncall/Schedules.js"
import { Orgs } from "../../orgs/Orgs.js"
import { Pages, type PageViewer } from "../Page.js"
import { html } from "../Template.js"
import * as Access from "./Access.js"
import * as Calendar from "./Calendar.js"
import * as ListPage from "./ListPage.js"
import * as People from "./People.js"
import * as PolicyForm from "./PolicyForm.js"
import * as PolicyPage from "./PolicyPage.js"
import * as ScheduleForm from "./ScheduleForm.js"
import * as SchedulePage from "./SchedulePage.js"

export const routes: ReadonlyArray<Route> = [
  { method: "GET", path: "/on-call", body: "none" },
  { method: "GET", path: "/on-call/schedules/new", body: "none" },
  { method: "GET", path: "/on-call/schedules/:id", body: "none" },
  { method: "GET", path: "/on-call/policies/new", body: "none" },
  { method: "GET", path: "/on-call/policies/:id", body: "none" }
]

// Every schedule, policy and channel fits one page: the plans' quotas keep them far below this.
const EVERYTHING = 500

const isScheduleId = Schema.is(ScheduleId)
const isPolicyId = Schema.is(EscalationPolicyId)

export const layer = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const { page } = yield* Pages
    const schedules = yield* Schedules
    const policies = yield* EscalationPolicies
    const channels = yield* Channels
    const orgs = yield* Orgs
    const plans = yield* Plans

    const accessOf = (viewer: PageViewer) =>
      Effect.map(plans.forAccount(viewer.active.accountId), (plan) =>
        Access.of(viewer.caller.credential, viewer.active.role, plan)
      )
    const peopleOf = (viewer: PageViewer) =>
      Effect.map(orgs.members(viewer.user.id, viewer.org.id), (members) => People.make(members))
    const allSchedules = (viewer: PageViewer) => schedules.list(viewer.active, EVERYTHING, 0)
    const allPolicies = (viewer: PageViewer) => policies.list(viewer.active, EVERYTHING, 0)
    const choicesOf = (viewer: PageViewer) =>
      Effect.all({
        people: peopleOf(viewer),
        schedules: Effect.map(allSchedules(viewer), (listed) => listed.data),
        channels: Effect.map(channels.list(viewer.active, { limit: EVERYTHING, offset: 0 }), (listed) => listed.data)
      })

    /** A page only a writer gets: anyone else sees why, as the list does. */
    const writersOnly = (access: Access.Access, title: string) => ({
      title,
      status: 403,
      body: html`<p class="breadcrumb"><a href="/on-call">On-call</a></p>
<h1>${title}</h1>
${Access.notice(access)}`
    })

    yield* router.get(
      "/on-call",
      page("on-call", (viewer) =>
        Effect.gen(function* () {
          const now = yield* DateTime.now
          const listed = yield* allSchedules(viewer)
          const rows = yield* Effect.forEach(listed.data, (schedule) =>
            Effect.map(schedules.onCall(viewer.active, schedule.id, now), (answer) => ({
              schedule,
              onCall: answer.user_id
            }))
          )
          const listedPolicies = yield* allPolicies(viewer)
          return ListPage.render({
            orgName: viewer.org.name,
            schedules: rows,
            schedulesTotal: listed.total,
            policies: listedPolicies.data,
            policiesTotal: listedPolicies.total,
            defaultPolicy: (yield* policies.defaultPolicy(viewer.active)).escalation_policy_id,
            people: yield* peopleOf(viewer),
            access: yield* accessOf(viewer)
          })
        })
      )
    )

    yield* router.get(
      "/on-call/schedules/new",
      page("on-call", (viewer) =>
        Effect.gen(function* () {
          const access = yield* accessOf(viewer)
          if (!Access.canWrite(access)) return writersOnly(access, "New schedule")
          return {
            title: "New schedule",
            body: html`<p class="breadcrumb"><a href="/on-call">On-call</a></p>
<h1>New schedule</h1>
<p class="no-js-only note">Creating needs JavaScript; turn it on for this site to send the form.</p>
${ScheduleForm.form({ schedule: undefined, people: yield* peopleOf(viewer), now: yield* DateTime.now })}`
          }
        })
      )
    )

    yield* router.get(
      "/on-call/schedules/:id",
      Effect.gen(function* () {
        const { id } = yield* HttpRouter.params
        const query = yield* HttpServerRequest.ParsedSearchParams
        const asked = typeof query["from"] === "string" ? Calendar.parseDate(query["from"]) : undefined
        return yield* page("on-call", (viewer) =>
          Effect.gen(function* () {
            // An id that is no UUID names no schedule: the same 404, without asking the database.
            if (id === undefined || !isScheduleId(id)) return yield* Effect.fail(noSchedule)
            const schedule = yield* schedules.get(viewer.active, id)
            const now = yield* DateTime.now
            const today = Calendar.localDate(DateTime.toDateUtc(now), schedule.time_zone)
            const first = asked ?? today
            const window = Calendar.span(schedule.time_zone, first, DEFAULT_SHIFT_WINDOW_DAYS)
            const shifts = yield* schedules.shifts(
              viewer.active,
              id,
              DateTime.unsafeFromDate(window.from),
              DateTime.unsafeFromDate(window.to)
            )
            const calendar = Calendar.layout({
              time_zone: schedule.time_zone,
              first,
              days: DEFAULT_SHIFT_WINDOW_DAYS,
              shifts: shifts.data.map((s) => ({
                user_id: s.user_id,
                layer: s.layer,
                starts_at: DateTime.toDateUtc(s.starts_at),
                ends_at: DateTime.toDateUtc(s.ends_at)
              })),
              now: DateTime.toDateUtc(now)
            })
            const people = yield* peopleOf(viewer)
            return SchedulePage.render({
              schedule,
              onCallNow: yield* schedules.onCall(viewer.active, id, now),
              calendar: { scheduleId: schedule.id, calendar, order: Calendar.people(schedule), people, today },
              people,
              access: yield* accessOf(viewer),
              now
            })
          })
        )
      })
    )

    yield* router.get(
      "/on-call/policies/new",
      page("on-call", (viewer) =>
        Effect.gen(function* () {
          const access = yield* accessOf(viewer)
          if (!Access.canWrite(access)) return writersOnly(access, "New escalation policy")
          return {
            title: "New escalation policy",
            body: html`<p class="breadcrumb"><a href="/on-call">On-call</a></p>
<h1>New escalation policy</h1>
<p class="no-js-only note">Creating needs JavaScript; turn it on for this site to send the form.</p>
${PolicyForm.form(undefined, yield* choicesOf(viewer))}`
          }
        })
      )
    )

    yield* router.get(
      "/on-call/policies/:id",
      Effect.gen(function* () {
        const { id } = yield* HttpRouter.params
        return yield* page("on-call", (viewer) =>
          Effect.gen(function* () {
            if (id === undefined || !isPolicyId(id)) return yield* Effect.fail(noPolicy)
            const policy = yield* policies.get(viewer.active, id)
            const choices = yield* choicesOf(viewer)
            const current = (yield* policies.defaultPolicy(viewer.active)).escalation_policy_id
            return PolicyPage.render({
              policy,
              isDefault: current !== null && current.toLowerCase() === policy.id.toLowerCase(),
              names: choices,
              choices,
              access: yield* accessOf(viewer)
            })
          })
        )
      })
    )
  })
).pipe(Layer.provide([Schedules.Default, EscalationPolicies.Default, Channels.Default, Orgs.Default, Plans.Default]))
