/**
 * Whether the viewer may change on-call, by the API's own rule (`oncall/Gates.refusal`: the `oncall:write` scope a
 * session always has, the owner role, then the plan's `on_call_enabled`), so a page offers a form exactly when the
 * API would accept what it sends. Reading is open to every member, as the API's reads are.
 */
import type { CallerShape } from "@signalman/core/api/Authentication"
import type { Role } from "@signalman/core/Identity"
import type * as Plan from "@signalman/core/Plan"
import * as PlanLimits from "@signalman/core/PlanLimits"
import * as Option from "effect/Option"
import * as Gates from "../../oncall/Gates.js"
import { type Html, html } from "../Template.js"

export type Access =
  | { readonly _tag: "write" }
  /** The plan lacks on-call: nobody in the org may write, and the page says how to get it. */
  | { readonly _tag: "plan"; readonly planName: string }
  /** Another refusal (a member, not an owner): the API's own words. */
  | { readonly _tag: "read"; readonly message: string }

export const of = (credential: CallerShape["credential"], role: Role, plan: Plan.Plan): Access => {
  // The plan is told first whoever looks: an owner or a member, nobody can write until the plan has on-call.
  if (!PlanLimits.includes(plan, "on_call")) return { _tag: "plan", planName: plan.name }
  const refused = Gates.refusal(credential, role, plan)
  return Option.isNone(refused) ? { _tag: "write" } : { _tag: "read", message: refused.value.message }
}

export const canWrite = (access: Access): boolean => access._tag === "write"

/** What a page says above its content when the viewer cannot write (nothing when they can). */
export const notice = (access: Access): Html => {
  switch (access._tag) {
    case "write":
      return html``
    case "plan":
      return html`<p class="notice" id="oncall-plan-notice">On-call schedules and escalation policies are not part of
the ${access.planName} plan. What exists stays readable, but nothing can be created or changed, and incidents page
nobody through a policy. <a href="/settings/billing">See plans on the billing page</a>.</p>`
    case "read":
      return html`<p class="notice" id="oncall-read-only">${access.message}: you can read this page but not change it.</p>`
  }
}
