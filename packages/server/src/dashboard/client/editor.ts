/**
 * The monitor form (`form[data-monitor-form]`, dashboard/monitors/EditorForm.ts): which sections were changed, the
 * boxes that remove a stored credential, the region policy's number, and the body shaped for the API before
 * forms.ts sends it (client/monitorBody.ts). With it come the flow steps' editor, the variables picker and "Test
 * now", each in a module of its own.
 */

import * as FlowSteps from "./flowSteps.js"
import { showError } from "./forms.js"
import { isRecord, shapeBody } from "./monitorBody.js"
import { secretsOf } from "./storedSecrets.js"
import * as TestNow from "./testNow.js"
import { sectionOf, touch, touchedOf } from "./touched.js"
import * as VariablePicker from "./variablePicker.js"

const monitorForm = (node: EventTarget | null): HTMLFormElement | null => {
  if (!(node instanceof Element)) return null
  const form = node instanceof HTMLFormElement ? node : node.closest("form")
  return form !== null && form.dataset["monitorForm"] !== undefined ? form : null
}

const onChange = (event: Event) => {
  const form = monitorForm(event.target)
  const field = event.target
  if (
    form === null ||
    !(field instanceof HTMLInputElement || field instanceof HTMLSelectElement || field instanceof HTMLTextAreaElement)
  )
    return
  const section = sectionOf(field.name)
  if (section !== undefined) touch(form, section)
  const group = field.dataset["clears"]
  if (field instanceof HTMLInputElement && group !== undefined) {
    // Removing a stored credential changes the check; its fields stand for nothing then, so they are not sent.
    touch(form, "check")
    for (const input of form.querySelectorAll<HTMLInputElement>("input[data-stored-secret]")) {
      if (input.dataset["storedSecret"] === group) input.disabled = field.checked
    }
  }
  if (field instanceof HTMLSelectElement && field.dataset["regionPolicy"] !== undefined) {
    const count = form.querySelector<HTMLInputElement>("input[data-region-count]")
    if (count !== null) {
      // Shown, and sent, only with a policy of "a number of regions".
      count.disabled = field.value !== "count"
      const block = count.closest<HTMLElement>(".field")
      if (block !== null) block.hidden = count.disabled
    }
  }
}

const onSubmit = (event: Event) => {
  const form = monitorForm(event.target)
  if (form === null || !(event instanceof CustomEvent)) return
  const detail: unknown = event.detail
  const body = isRecord(detail) ? detail["body"] : undefined
  if (!isRecord(body)) return
  const shaped = shapeBody(body, {
    touched: form.dataset["monitorForm"] === "edit" ? touchedOf(form) : undefined,
    ...secretsOf(form)
  })
  if (!shaped.ok) {
    event.preventDefault()
    showError(form, { field: shaped.field, message: shaped.message, code: "FORM" })
    return
  }
  for (const key of Object.keys(body)) delete body[key]
  Object.assign(body, shaped.value)
}

export const install = () => {
  document.addEventListener("input", onChange)
  document.addEventListener("change", onChange)
  document.addEventListener("signalman:submit", onSubmit)
  FlowSteps.install()
  VariablePicker.install()
  TestNow.install()
}
