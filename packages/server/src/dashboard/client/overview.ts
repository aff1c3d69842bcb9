/**
 * The monitors overview's selection and bulk actions. The rows' checkboxes are a `data-type="set"` field named
 * `ids`, and the bar's buttons each name an action (`data-bulk-action`); the form itself is sent by forms.ts to
 * `POST /api/v1/targets/bulk-action`. This module keeps the select-all box and the count in step, and, as the form
 * is submitted, writes the pressed button's action into the form's `action` field, sends the tags only with the
 * tag actions (the API refuses a field the action does not take), asks before deleting, and stops a submit with
 * nothing selected before it reaches the API.
 */

const selected = (form: HTMLFormElement) =>
  [...form.querySelectorAll<HTMLInputElement>('input[type=checkbox][name="ids"]')].filter((box) => box.checked)

const refresh = (form: HTMLFormElement) => {
  const boxes = [...form.querySelectorAll<HTMLInputElement>('input[type=checkbox][name="ids"]')]
  const n = boxes.filter((box) => box.checked).length
  const all = form.querySelector<HTMLInputElement>("input[data-select-all]")
  if (all !== null) {
    all.checked = n > 0 && n === boxes.length
    all.indeterminate = n > 0 && n < boxes.length
  }
  for (const node of form.querySelectorAll<HTMLElement>("[data-bulk-count]")) node.textContent = String(n)
}

const refuse = (form: HTMLFormElement, message: string) => {
  const status = form.querySelector<HTMLElement>("[data-form-status]")
  if (status === null) return
  status.textContent = message
  status.classList.add("error")
}

const onSubmit = (event: SubmitEvent) => {
  const form = event.target
  if (!(form instanceof HTMLFormElement) || form.dataset["bulk"] === undefined) return
  const submitter = event.submitter
  const action = submitter instanceof HTMLElement ? submitter.dataset["bulkAction"] : undefined
  if (action === undefined || selected(form).length === 0) {
    // Stopped here, before forms.ts (which listens as the event bubbles) sends anything.
    event.preventDefault()
    event.stopImmediatePropagation()
    if (action !== undefined) refuse(form, "Select at least one monitor first.")
    return
  }
  const field = form.querySelector<HTMLInputElement>('input[name="action"]')
  if (field !== null) field.value = action
  const tags = form.querySelector<HTMLInputElement>('input[name="tags"]')
  if (tags !== null) {
    tags.disabled = action !== "tag-add" && action !== "tag-remove"
    // forms.ts reads the form as this event reaches it; the field is usable again right after.
    window.setTimeout(() => {
      tags.disabled = false
    }, 0)
  }
  const confirmText = submitter instanceof HTMLElement ? submitter.dataset["bulkConfirm"] : undefined
  if (confirmText === undefined) delete form.dataset["confirm"]
  else form.dataset["confirm"] = confirmText
}

export const install = () => {
  // Capturing, so it runs before forms.ts's listener for the same submit.
  document.addEventListener("submit", onSubmit, true)
  document.addEventListener("change", (event) => {
    const target = event.target
    if (!(target instanceof HTMLInputElement)) return
    const form = target.closest<HTMLFormElement>("form[data-bulk]")
    if (form === null) return
    if (target.dataset["selectAll"] !== undefined) {
      for (const box of form.querySelectorAll<HTMLInputElement>('input[type=checkbox][name="ids"]')) {
        box.checked = target.checked
      }
    }
    refresh(form)
  })
  for (const form of document.querySelectorAll<HTMLFormElement>("form[data-bulk]")) refresh(form)
}
