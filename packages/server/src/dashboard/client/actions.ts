/**
 * One-click actions outside a form: `<button data-action="/api/v1/targets/{id}/pause" data-method="POST">`, with
 * optional `data-body` (JSON), `data-confirm` (asked first), and after success `data-redirect` or `data-reload`
 * (the default) or `data-done` (said in the page's status line), or `data-follow="<field>"`: go to the URL the
 * answer's field holds as it is (linking a provider answers its consent page's address). A failure is said in the status line
 * (`#flash`, a live region), so it is read out as well as shown.
 */
import { call, fill } from "./api.js"

/** Says something in the page's live region. */
export const flash = (message: string, kind: "info" | "error" = "info") => {
  const region = document.getElementById("flash")
  if (region === null) {
    if (kind === "error") window.alert(message)
    return
  }
  region.textContent = message
  region.classList.toggle("error", kind === "error")
  region.hidden = false
}

const lookupString = (body: unknown, key: string): string | undefined => {
  if (typeof body !== "object" || body === null) return undefined
  const value: unknown = Object.entries(body).find(([name]) => name === key)?.[1]
  return typeof value === "string" ? value : undefined
}

const run = async (button: HTMLElement) => {
  const confirmText = button.dataset["confirm"]
  if (confirmText !== undefined && !window.confirm(confirmText)) return
  const path = button.dataset["action"] ?? ""
  const method = (button.dataset["method"] ?? "POST").toUpperCase()
  let body: unknown
  const raw = button.dataset["body"]
  if (raw !== undefined) {
    try {
      body = JSON.parse(raw)
    } catch {
      flash("This action is misconfigured; reload the page.", "error")
      return
    }
  }
  if (button instanceof HTMLButtonElement) button.disabled = true
  button.setAttribute("aria-busy", "true")
  try {
    const outcome = await call(method, path, body)
    if (!outcome.ok) {
      flash(outcome.failure.message, "error")
      return
    }
    button.dispatchEvent(new CustomEvent("signalman:done", { detail: outcome.body, bubbles: true }))
    const follow = button.dataset["follow"]
    const target = follow === undefined ? undefined : lookupString(outcome.body, follow)
    const redirect = button.dataset["redirect"]
    if (target !== undefined) window.location.assign(target)
    else if (redirect !== undefined) window.location.assign(fill(redirect, outcome.body))
    else if (button.dataset["done"] !== undefined) flash(button.dataset["done"])
    else window.location.reload()
  } finally {
    if (button instanceof HTMLButtonElement) button.disabled = false
    button.removeAttribute("aria-busy")
  }
}

export const install = () => {
  document.addEventListener("click", (event) => {
    const target = event.target
    if (!(target instanceof Element)) return
    const button = target.closest<HTMLElement>("[data-action]")
    if (button === null) return
    event.preventDefault()
    void run(button)
  })
}
