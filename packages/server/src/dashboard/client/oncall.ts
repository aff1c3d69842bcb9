/**
 * The on-call forms (`form[data-oncall]`): before sending, their bodies are shaped by oncallBody.ts with the rows
 * the page marks (`[data-layer]` / `[data-step]` fieldsets, `data-spare` on a row offered to add, a ticked
 * `[data-remove-layer]` / `[data-remove-step]` box on one to remove).
 */
import type { SubmitDetail } from "./forms.js"
import { type Rows, shapePolicy, shapeSchedule } from "./oncallBody.js"

const rowsOf = (form: HTMLFormElement, row: "layer" | "step"): Rows => {
  const spare = new Set<number>()
  const removed = new Set<number>()
  for (const fieldset of form.querySelectorAll<HTMLElement>(`[data-${row}]`)) {
    const index = Number(fieldset.dataset[row])
    if (fieldset.dataset["spare"] !== undefined) spare.add(index)
  }
  for (const box of form.querySelectorAll<HTMLInputElement>(`input[data-remove-${row}]`)) {
    if (box.checked) removed.add(Number(box.getAttribute(`data-remove-${row}`)))
  }
  return { spare, removed }
}

const isSubmit = (event: Event): event is CustomEvent<SubmitDetail> => event instanceof CustomEvent

export const install = () => {
  document.addEventListener("signalman:submit", (event) => {
    const form = event.target
    if (!(form instanceof HTMLFormElement) || !isSubmit(event)) return
    const kind = form.dataset["oncall"]
    if (kind !== "schedule" && kind !== "policy") return
    const body = event.detail.body
    const shaped =
      kind === "schedule" ? shapeSchedule(body, rowsOf(form, "layer")) : shapePolicy(body, rowsOf(form, "step"))
    for (const key of Object.keys(body)) delete body[key]
    Object.assign(body, shaped)
  })
}
