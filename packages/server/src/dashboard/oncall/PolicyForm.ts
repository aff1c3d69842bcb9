/**
 * The form that creates an escalation policy (`POST /api/v1/oncall/escalation-policies`) or changes one (`PATCH
 * .../escalation-policies/<id>`): name, steps (each a delay after the previous one and the people, schedules and
 * channels of the org it pages) and how many more times the steps repeat. Each target is a checkbox worth
 * `type:id`, which `client/oncall.ts` turns into the API's `{ type, id }`; a spare step with nothing ticked is left
 * out, and a step ticked for removal goes.
 */
import type { Channel } from "@signalman/core/Channel"
import type { EscalationPolicy, Step, StepTarget } from "@signalman/core/oncall/EscalationPolicy"
import { MAX_DELAY_MINUTES, MAX_REPEAT, MAX_STEPS } from "@signalman/core/oncall/EscalationPolicy"
import { MAX_NAME_LENGTH, type Schedule } from "@signalman/core/oncall/Schedule"
import { type Html, html } from "../Template.js"
import type { People } from "./People.js"

/** What a policy's steps may name, read through the services the API checks them against. */
export interface TargetChoices {
  readonly people: People
  readonly schedules: ReadonlyArray<Schedule>
  readonly channels: ReadonlyArray<Channel>
}

const keyOf = (t: StepTarget) => `${t.type}:${t.id.toLowerCase()}`

const choiceGroup = (
  name: string,
  legend: string,
  choices: ReadonlyArray<{ readonly value: string; readonly label: string }>,
  chosen: ReadonlySet<string>,
  empty: string
): Html => html`<fieldset class="inline-choices"><legend>${legend}</legend>
${
  choices.length === 0
    ? html`<p class="muted">${empty}</p>`
    : choices.map(
        (c) =>
          html`<label class="inline"><input type="checkbox" name="${name}" data-type="set" value="${c.value}"${
            chosen.has(c.value.toLowerCase()) ? html` checked` : ""
          }> ${c.label}</label>`
      )
}
</fieldset>`

const stepFieldset = (i: number, step: Step | undefined, choices: TargetChoices): Html => {
  const prefix = `steps[${i}]`
  const id = `p-steps-${i}`
  const chosen = new Set((step?.targets ?? []).map(keyOf))
  const name = `${prefix}.targets`
  return html`<fieldset class="oncall-step" data-step="${i}"${step === undefined ? html` data-spare` : ""}>
<legend>${step === undefined ? (i === 0 ? "Step 1" : `Add step ${i + 1}`) : `Step ${i + 1}`}</legend>
${step === undefined ? html`<p class="hint">Tick whom it pages to add this step; with nobody ticked it is left out.</p>` : ""}
<div class="field"><label for="${id}-delay">Delay (minutes)</label>
<input type="number" id="${id}-delay" name="${prefix}.delay_minutes" data-type="number" step="1" min="0"
  max="${MAX_DELAY_MINUTES}" value="${step?.delay_minutes ?? (i === 0 ? 0 : 10)}" aria-describedby="${id}-delay-hint">
<p class="hint" id="${id}-delay-hint">${i === 0 ? "After the incident opens." : "After the previous step."}</p></div>
<fieldset data-field="${name}"><legend>Pages</legend>
${choiceGroup(
  name,
  "People",
  choices.people.all.map((m) => ({
    value: `user:${m.user_id.toLowerCase()}`,
    label: choices.people.nameOf(m.user_id)
  })),
  chosen,
  "No members."
)}
${choiceGroup(
  name,
  "Whoever a schedule has on call",
  choices.schedules.map((s) => ({ value: `schedule:${s.id.toLowerCase()}`, label: s.name })),
  chosen,
  "No schedules yet."
)}
${choiceGroup(
  name,
  "Alert channels",
  choices.channels.map((c) => ({ value: `channel:${c.id.toLowerCase()}`, label: `${c.name} (${c.kind})` })),
  chosen,
  "No alert channels yet."
)}
</fieldset>
${step === undefined ? "" : html`<label class="inline"><input type="checkbox" data-remove-step="${i}"> Remove this step</label>`}
</fieldset>`
}

export const form = (policy: EscalationPolicy | undefined, choices: TargetChoices): Html => {
  const steps = policy?.steps ?? []
  return html`<form class="oncall-form" data-oncall="policy" ${
    policy === undefined
      ? html`data-api="/api/v1/oncall/escalation-policies" data-method="POST" data-redirect="/on-call/policies/{id}"`
      : html`data-api="/api/v1/oncall/escalation-policies/${policy.id}" data-method="PATCH" data-reload`
  } method="post" action="/dashboard/js-required" novalidate>
<div class="field"><label for="policy-name">Name</label>
<input type="text" id="policy-name" name="name" required maxlength="${MAX_NAME_LENGTH}" value="${policy?.name ?? ""}" autocomplete="off"></div>
${steps.map((step, i) => stepFieldset(i, step, choices))}
${steps.length < MAX_STEPS ? stepFieldset(steps.length, undefined, choices) : ""}
<div class="field"><label for="policy-repeat">Repeat</label>
<input type="number" id="policy-repeat" name="repeat" data-type="number" step="1" min="0" max="${MAX_REPEAT}"
  value="${policy?.repeat ?? 0}" aria-describedby="policy-repeat-hint">
<p class="hint" id="policy-repeat-hint">How many more times the whole list is walked while nobody acknowledges: 0 to
${MAX_REPEAT}.</p></div>
<p class="form-status" data-form-status role="status"></p>
<button type="submit" class="primary">${policy === undefined ? "Create policy" : "Save policy"}</button>
</form>`
}
