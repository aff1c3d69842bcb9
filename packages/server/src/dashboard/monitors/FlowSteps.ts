/**
 * A browser flow's steps as an editable list: one row per step, its fields named `check.steps[i].<field>` so the
 * API's errors (`check.steps[1].selector`) land on them. A row holds a field for every step field, and only those
 * of its action are shown and sent (the others are hidden and disabled, since a key the action does not take is 422).
 * With script (client/flowSteps.ts) rows are added from the `<template>`, removed and moved, and renumbered; without
 * it the list reads as it is. A stored fill value is redacted: its field opens empty, marked as standing for a
 * stored value (client/monitorBody.ts decides what a save does with it).
 */
import type { FlowStep } from "@signalman/core/CheckSpec"
import { attributes, type Html, html } from "../Template.js"
import { isRedacted } from "./EditorValues.js"
import { idOf } from "./Fields.js"

type Action = FlowStep["action"]

const actions: ReadonlyArray<{ readonly action: Action; readonly label: string }> = [
  { action: "goto", label: "Go to a URL" },
  { action: "fill", label: "Fill in a field" },
  { action: "click", label: "Click" },
  { action: "wait_for", label: "Wait for an element" },
  { action: "assert_text", label: "Assert a text" },
  { action: "assert_url", label: "Assert the URL" }
]

/** Each step field, the actions that take it, and how it is labelled. */
const stepFields: ReadonlyArray<{
  readonly field: "url" | "selector" | "value" | "text" | "contains"
  readonly label: string
  readonly actions: ReadonlyArray<Action>
  readonly hint?: string
}> = [
  { field: "url", label: "URL", actions: ["goto"] },
  {
    field: "selector",
    label: "CSS selector",
    actions: ["fill", "click", "wait_for", "assert_text"],
    hint: "For an assert: optional, the element the text must be in."
  },
  {
    field: "value",
    label: "Value",
    actions: ["fill"],
    hint: "Typed as written; may be a {{key}} reference to a variable, secret ones included."
  },
  { field: "text", label: "Text", actions: ["assert_text"], hint: "Must appear on the page." },
  { field: "contains", label: "URL contains", actions: ["assert_url"] }
]

const fieldValue = (step: FlowStep, field: (typeof stepFields)[number]["field"]): string => {
  switch (field) {
    case "url":
      return step.action === "goto" ? step.url : ""
    case "selector":
      return step.action === "fill" || step.action === "click" || step.action === "wait_for"
        ? step.selector
        : step.action === "assert_text"
          ? (step.selector ?? "")
          : ""
    case "value":
      // A stored value is never shown: the field opens empty and says why.
      return step.action === "fill" && !isRedacted(step.value) ? step.value : ""
    case "text":
      return step.action === "assert_text" ? step.text : ""
    case "contains":
      return step.action === "assert_url" ? step.contains : ""
  }
}

// Said to assistive technology only: which step a button acts on (renumbered with the row).
const which = (index: number): Html =>
  html`<span class="visually-hidden"> step <span data-step-number>${index + 1}</span></span>`

const row = (step: FlowStep, index: number): Html => {
  const action = `check.steps[${index}].action`
  const storedValue = step.action === "fill" && isRedacted(step.value)
  return html`<li class="flow-step" data-step>
<fieldset>
<legend>Step <span data-step-number>${index + 1}</span></legend>
<div class="field">
<label for="${idOf(action)}">Action</label>
<select id="${idOf(action)}" name="${action}" data-step-action>
${actions.map((a) => html`<option${attributes({ value: a.action, selected: a.action === step.action })}>${a.label}</option>`)}
</select>
</div>
${stepFields.map((f) => {
  const name = `check.steps[${index}].${f.field}`
  const id = idOf(name)
  const shown = f.actions.includes(step.action)
  const secret = f.field === "value" && storedValue
  const hint = secret ? "A value is stored and never shown. Enter it again when you change the steps." : f.hint
  return html`<div class="field"${attributes({ "data-actions": f.actions.join(" "), hidden: !shown })}>
<label for="${id}">${f.label}</label>
<input${attributes({
    id,
    name,
    type: f.field === "value" ? "password" : "text",
    value: fieldValue(step, f.field),
    disabled: !shown,
    autocomplete: f.field === "value" ? "off" : undefined,
    // An empty fill value is a real one (it clears the field), so it is sent as "".
    "data-empty": f.field === "value" ? "keep" : undefined,
    "data-variables": f.field === "value" ? "secret" : undefined,
    "data-stored-secret": secret ? "fill" : undefined,
    "aria-describedby": hint === undefined ? undefined : `${id}-hint`
  })}>
${hint === undefined ? "" : html`<p class="hint" id="${id}-hint">${hint}</p>`}
</div>`
})}
<div class="step-tools js-only">
<button type="button" data-step-move="-1">Move up${which(index)}</button>
<button type="button" data-step-move="1">Move down${which(index)}</button>
<button type="button" class="danger" data-step-remove>Remove${which(index)}</button>
</div>
</fieldset>
</li>`
}

/** The steps' list, its add button, and the template a new row is made from. */
export const flowSteps = (steps: ReadonlyArray<FlowStep>): Html =>
  html`<fieldset class="field flow-steps" data-field="check.steps" tabindex="-1">
<legend>Steps</legend>
<p class="hint">Run top to bottom after the start URL loads; at least one must assert a text or the URL.</p>
<ol class="step-list" data-step-list>
${steps.map(row)}
</ol>
<button type="button" class="js-only" data-step-add>Add a step</button>
<template data-step-template>${row({ action: "click", selector: "" }, 0)}</template>
</fieldset>`
