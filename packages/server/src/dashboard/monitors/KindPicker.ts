/**
 * `GET /monitors/new` without a kind: the nine kinds, each a link to its form with one line on what it checks. A
 * kind the plan does not include (browser flows on a plan whose flow cap is 0) says so instead of linking to a form
 * whose save would be refused.
 */
import type * as Plan from "@signalman/core/Plan"
import * as PlanLimits from "@signalman/core/PlanLimits"
import { type Html, html } from "../Template.js"
import * as Kinds from "./Kinds.js"

const available = (kind: Kinds.KindInfo, plan: Plan.Plan): boolean =>
  kind.kind !== "flow" || PlanLimits.includes(plan, "flow_checks")

/** The picker's body; `unknown` is a kind the query named that does not exist. */
export const kindPicker = (
  plan: Plan.Plan,
  unknown: string | undefined
): Html => html`<div class="page-head"><h1>New monitor</h1></div>
${unknown === undefined ? "" : html`<p class="notice error" role="alert">There is no kind of monitor named “${unknown}”. Pick one below.</p>`}
<p>What should it check?</p>
<ul class="kind-list">
${Kinds.kinds.map((kind) =>
  available(kind, plan)
    ? html`<li class="kind-card"><a href="/monitors/new?type=${kind.kind}">${kind.label}</a>
<p>${kind.summary}</p></li>`
    : html`<li class="kind-card unavailable"><span class="kind-name">${kind.label}</span>
<p>${kind.summary}</p>
<p class="muted">Not part of the ${plan.name} plan.</p></li>`
)}
</ul>`
