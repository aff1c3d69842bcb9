/**
 * The variables picker (dashboard/monitors/EditorForm.ts): a button per org variable inserts `{{key}}` at the cursor
 * of the field last focused among those where the API resolves references (`data-variables`), replacing any
 * selection. A secret variable goes only where the API allows one (`data-variables="secret"`: a header value, the
 * body, a fill value); elsewhere the picker says so instead of writing what a save would refuse.
 */

type TextField = HTMLInputElement | HTMLTextAreaElement

let last: TextField | null = null

const say = (picker: Element | null, message: string) => {
  const status = picker?.querySelector("[data-variable-status]")
  if (status instanceof HTMLElement) status.textContent = message
}

const insert = (button: HTMLElement) => {
  const picker = button.closest(".variable-picker")
  const key = button.dataset["insertVariable"] ?? ""
  const field = last
  if (field === null || !field.isConnected || field.disabled) {
    say(picker, "First click into the field the variable goes in (the URL, the headers, the body or a fill value).")
    return
  }
  if (button.dataset["secret"] !== undefined && field.dataset["variables"] !== "secret") {
    say(picker, `{{${key}}} is secret: it may go only in a header value, the body or a fill value.`)
    return
  }
  const text = `{{${key}}}`
  const start = field.selectionStart ?? field.value.length
  const end = field.selectionEnd ?? start
  field.setRangeText(text, start, end, "end")
  // Told like typing, so the form knows its check changed.
  field.dispatchEvent(new Event("input", { bubbles: true }))
  field.focus()
  say(picker, `Inserted {{${key}}}.`)
}

export const install = () => {
  document.addEventListener("focusin", (event) => {
    const target = event.target
    if (
      (target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement) &&
      target.dataset["variables"] !== undefined
    ) {
      last = target
    }
  })
  document.addEventListener("click", (event) => {
    const target = event.target
    const button = target instanceof Element ? target.closest<HTMLElement>("[data-insert-variable]") : null
    if (button !== null) insert(button)
  })
}
