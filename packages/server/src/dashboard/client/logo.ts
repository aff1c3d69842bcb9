/**
 * Logo uploads: `<form data-upload="/api/v1/status-pages/{id}/logo">` with one file input. The file goes to the API
 * as `multipart/form-data` in the part the input names (`file`), with the session's CSRF header like every write
 * (api.ts); a refusal (too large, a type that is not an image) is shown on the file input, as forms.ts shows the
 * API's errors, and success reloads the page to show the new logo.
 */
import { call } from "./api.js"
import { clearErrors, showError } from "./forms.js"

const upload = async (form: HTMLFormElement, submitter: HTMLElement | null) => {
  clearErrors(form)
  const input = form.querySelector("input[type=file]")
  if (!(input instanceof HTMLInputElement)) return
  const file = input.files?.[0]
  if (file === undefined) {
    showError(form, { field: input.name, message: "Choose a file to upload", code: "FORM" })
    return
  }
  const body = new FormData()
  body.append(input.name, file, file.name)
  form.setAttribute("aria-busy", "true")
  if (submitter instanceof HTMLButtonElement) submitter.disabled = true
  try {
    const outcome = await call("POST", form.dataset["upload"] ?? "", body)
    if (outcome.ok) window.location.reload()
    else showError(form, outcome.failure)
  } finally {
    form.removeAttribute("aria-busy")
    if (submitter instanceof HTMLButtonElement) submitter.disabled = false
  }
}

export const install = () => {
  document.addEventListener("submit", (event) => {
    const form = event.target
    if (!(form instanceof HTMLFormElement) || form.dataset["upload"] === undefined) return
    event.preventDefault()
    void upload(form, event.submitter)
  })
}
