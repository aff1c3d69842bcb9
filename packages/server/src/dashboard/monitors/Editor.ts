/**
 * Making and changing monitors: `GET /monitors/new` (the kind picker), `GET /monitors/new?type=<kind>` (a new
 * monitor's form, every field at the API's default for that kind and plan) and `GET /monitors/{id}/edit` (the same
 * form filled from the stored monitor, read like the API's `get`: `Targets.one` then `toTarget`). The forms write
 * through the JSON API from the browser (EditorForm.ts); these routes only read, through the services the API's
 * handlers call: the plan (`Plans`), the org's channels (`Channels`), variables (`Variables`) and the enabled probe
 * regions (`Regions`), and the instance's default regions (`checker.default_regions`) a new monitor opens with.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as PlanLimits from "@signalman/core/PlanLimits"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { Abuse } from "../../abuse/Abuse.js"
import { Channels } from "../../channels/Channels.js"
import { AppConfig } from "../../config/Config.js"
import type { Route } from "../../http/RouteTable.js"
import { Plans } from "../../limits/Plans.js"
import { EscalationPolicies } from "../../oncall/EscalationPolicies.js"
import * as Gates from "../../oncall/Gates.js"
import { Regions } from "../../targets/Regions.js"
import { toTarget } from "../../targets/Stored.js"
import { notFound, Targets } from "../../targets/Targets.js"
import { Variables } from "../../variables/Variables.js"
import { Pages, type PageViewer } from "../Page.js"
import { html } from "../Template.js"
import { type Choices, editorForm, regionsForm } from "./EditorForm.js"
import * as EditorValues from "./EditorValues.js"
import { kindPicker } from "./KindPicker.js"
import * as Kinds from "./Kinds.js"

export const routes: ReadonlyArray<Route> = [
  { method: "GET", path: "/monitors/new", body: "none" },
  { method: "GET", path: "/monitors/:id/edit", body: "none" }
]

// Every choice fits one page: an org's channels and variables are bounded by its plan's quotas, far below this.
const everything = { limit: 500, offset: 0 } as const

const isTargetId = Schema.is(Schema.UUID)

export const layer = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const { page } = yield* Pages
    const targets = yield* Targets
    const plans = yield* Plans
    const channels = yield* Channels
    const variables = yield* Variables
    const regions = yield* Regions
    const config = yield* AppConfig
    const policies = yield* EscalationPolicies

    const choicesFor = (viewer: PageViewer): Effect.Effect<Choices> =>
      Effect.gen(function* () {
        const plan = yield* plans.forAccount(viewer.active.accountId)
        // Whether the viewer may bind a policy is the targets handlers' own gate (Admission.changePolicy).
        const refused = Gates.refusal(viewer.caller.credential, viewer.active.role, plan, "escalation_policy_id")
        return yield* Effect.all({
          plan: Effect.succeed(plan),
          channels: Effect.map(channels.list(viewer.active, everything), (listed) => listed.data),
          regions: regions.enabled,
          variables: Effect.map(variables.list(viewer.active.id, everything), (listed) => listed.data),
          escalation: Effect.all({
            policies: Effect.map(policies.list(viewer.active, everything.limit, everything.offset), (l) => l.data),
            defaultId: Effect.map(policies.defaultPolicy(viewer.active), (d) => d.escalation_policy_id),
            refused: Effect.succeed(Option.getOrUndefined(Option.map(refused, (error) => error.message)))
          })
        })
      })

    yield* router.get(
      "/monitors/new",
      page("monitors", (viewer) =>
        Effect.gen(function* () {
          const query = yield* HttpServerRequest.ParsedSearchParams
          const named = query["type"]
          const asked = typeof named === "string" ? named : undefined
          const kind = Kinds.parse(asked)
          const choices = yield* choicesFor(viewer)
          if (kind === undefined) {
            return {
              title: "New monitor",
              status: asked === undefined ? 200 : 404,
              body: kindPicker(choices.plan, asked)
            }
          }
          const values = EditorValues.forNew(kind, choices.plan, config["checker.default_regions"])
          const label = Kinds.info(kind).label
          const gated = kind === "flow" && !PlanLimits.includes(choices.plan, "flow_checks")
          return {
            title: `New ${label} monitor`,
            body: html`<div class="page-head"><h1>New ${label} monitor</h1><a href="/monitors/new">Another kind</a></div>
${gated && html`<p class="notice">Browser flows are not part of the ${choices.plan.name} plan: a new one cannot be saved.</p>`}
${editorForm(values, choices, { _tag: "create" })}`
          }
        })
      )
    )

    yield* router.get(
      "/monitors/:id/edit",
      page("monitors", (viewer) =>
        Effect.gen(function* () {
          const { id } = yield* HttpRouter.params
          // Not an id at all is the same 404 as another org's monitor.
          if (id === undefined || !isTargetId(id)) return yield* Effect.fail(notFound)
          const row = yield* targets.one(viewer.active, id)
          if (row === undefined) return yield* Effect.fail(notFound)
          const target = toTarget(row)
          // A stored check that no longer decodes is the service's fault, not the viewer's.
          const values = yield* Effect.orDie(EditorValues.fromTarget(target))
          const choices = yield* choicesFor(viewer)
          return {
            title: `Edit ${target.name}`,
            body: html`<div class="page-head"><h1>Edit ${target.name}</h1>
<span class="muted">${Kinds.info(values.check.type).label} monitor</span></div>
${editorForm(values, choices, { _tag: "edit", id: target.id, managedBy: target.managed_by })}
${regionsForm(target.id, values, choices.regions)}`
          }
        })
      )
    )
  })
).pipe(
  Layer.provide([
    Targets.Default,
    Plans.Default,
    Channels.Default,
    Variables.Default,
    Regions.Default,
    EscalationPolicies.Default
  ]),
  // Regions judges assignments as a create does (Admission), which asks the anti-abuse rules.
  Layer.provide(Abuse.Default)
)
