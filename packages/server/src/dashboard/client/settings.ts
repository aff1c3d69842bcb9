/**
 * The settings pages' behaviour beyond forms and buttons:
 *
 * - Shown once: a form with `data-reveal="<field>"` (an API token's create, a webhook's) shows that field of the
 *   answer in the section `data-reveal-panel` names, with a copy button, since the API never answers it again. An
 *   answer without the field goes on to `data-reveal-next` (`{id}` filled from the answer).
 * - A channel's test send (`data-outcome="delivery"`): the answer says whether the service accepted the message, so
 *   the page's status line says that, not only that a test was sent.
 */
import { fill } from "./api.js"

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** Shows the once-only value of a form's answer, or goes on when the answer has none. */
const reveal = (form: HTMLFormElement, body: unknown) => {
  const field = form.dataset["reveal"] ?? ""
  const value = isRecord(body) ? body[field] : undefined
  const panel = document.getElementById(form.dataset["revealPanel"] ?? "")
  if (typeof value !== "string" || panel === null) {
    const next = form.dataset["revealNext"]
    if (next !== undefined) window.location.assign(fill(next, body))
    return
  }
  const output = panel.querySelector<HTMLElement>("[data-reveal-value]")
  if (output !== null) output.textContent = value
  const onward = panel.querySelector<HTMLAnchorElement>("a[data-reveal-continue]")
  const next = form.dataset["revealNext"]
  if (onward !== null && next !== undefined) onward.href = fill(next, body)
  form.hidden = true
  panel.hidden = false
  panel.focus()
}

/** The words for a test send's answer: delivered (with the service's status) or the error the service gave. */
export const deliveryMessage = (subject: string, body: unknown): string => {
  if (!isRecord(body) || typeof body["delivered"] !== "boolean") return `Test sent to ${subject}.`
  const status = typeof body["status_code"] === "number" ? ` (HTTP ${body["status_code"]})` : ""
  const took = typeof body["duration_ms"] === "number" ? ` in ${body["duration_ms"]} ms` : ""
  if (body["delivered"]) return `Test delivered to ${subject}${took}${status}.`
  const error = typeof body["error"] === "string" ? `: ${body["error"]}` : ""
  return `Test not delivered to ${subject}${error}${status}.`
}

/** Copies the revealed value next to the button; where the clipboard is refused, selects it for a manual copy. */
const copy = async (button: HTMLButtonElement) => {
  const output = button.closest("section")?.querySelector<HTMLElement>("[data-reveal-value]") ?? null
  const text = output?.textContent ?? ""
  try {
    await navigator.clipboard.writeText(text)
    button.textContent = "Copied"
  } catch {
    if (output !== null) {
      const range = document.createRange()
      range.selectNodeContents(output)
      window.getSelection()?.removeAllRanges()
      window.getSelection()?.addRange(range)
    }
    button.textContent = "Selected: copy it with your keyboard"
  }
}

export const install = () => {
  document.addEventListener("signalman:done", (event) => {
    const source = event.target
    const detail: unknown = event instanceof CustomEvent ? event.detail : undefined
    if (source instanceof HTMLFormElement && source.dataset["reveal"] !== undefined) reveal(source, detail)
    // The button's done text is read right after this event (actions.ts), so the outcome becomes that text.
    if (source instanceof HTMLElement && source.dataset["outcome"] === "delivery") {
      source.dataset["done"] = deliveryMessage(source.dataset["subject"] ?? "the channel", detail)
    }
  })
  document.addEventListener("click", (event) => {
    const target = event.target
    if (!(target instanceof Element)) return
    const button = target.closest("button[data-copy]")
    if (button instanceof HTMLButtonElement) void copy(button)
  })
}
