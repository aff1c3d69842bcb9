/**
 * "Test now" on the monitor form: the check as the form has it (read like a save: forms.ts `bodyOf`, then
 * monitorBody's shapes) runs once through `POST /api/v1/targets/test`, from the region chosen, and its result
 * (status, duration, error, details) is shown in the page; nothing is saved. A refusal (an invalid URL, say) lands on
 * the field the API names, as a save's would. Credentials stored with the monitor are never in the page, so a test
 * runs without those not entered again, and says so.
 */
import { call } from "./api.js"
import { bodyOf, clearErrors, FieldError, showError } from "./forms.js"
import { isRecord, missingSecret, shapeCheck } from "./monitorBody.js"
import { secretsOf } from "./storedSecrets.js"

interface Result {
  readonly status: string
  readonly durationMs: number
  readonly error: string | null
  readonly details: unknown
  readonly region: string | null
}

const readResult = (body: unknown): Result | undefined => {
  if (!isRecord(body) || typeof body["status"] !== "string" || typeof body["duration_ms"] !== "number") return undefined
  return {
    status: body["status"],
    durationMs: body["duration_ms"],
    error: typeof body["error"] === "string" ? body["error"] : null,
    details: body["details"] ?? null,
    region: typeof body["region"] === "string" ? body["region"] : null
  }
}

const words: Readonly<Record<string, string>> = { up: "Up", degraded: "Degraded", down: "Down", error: "Error" }

const element = <K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, className?: string) => {
  const node = document.createElement(tag)
  if (text !== undefined) node.textContent = text
  if (className !== undefined) node.className = className
  return node
}

const show = (box: HTMLElement, result: Result, withoutStored: boolean) => {
  const line = element("p")
  line.append(
    element("span", words[result.status] ?? result.status, `state state-${result.status}`),
    ` in ${Math.round(result.durationMs)} ms${result.region === null ? "" : ` from ${result.region}`}`
  )
  box.replaceChildren(line)
  if (result.error !== null) box.append(element("p", result.error, "test-error"))
  if (result.details !== null) {
    const details = element("details")
    details.append(element("summary", "Details"), element("pre", JSON.stringify(result.details, null, 2)))
    box.append(details)
  }
  if (withoutStored) {
    box.append(
      element(
        "p",
        "Run without the stored credentials, which are never shown to this page: enter them above to test with them.",
        "note"
      )
    )
  }
}

const run = async (button: HTMLButtonElement) => {
  const form = button.closest("form")
  const box = form?.querySelector<HTMLElement>("[data-test-result]")
  if (form == null || box == null) return
  clearErrors(form)
  let check: Record<string, unknown>
  try {
    const raw = bodyOf(form)["check"]
    const shaped = shapeCheck(isRecord(raw) ? raw : {})
    if (!shaped.ok) {
      showError(form, { field: shaped.field, message: shaped.message, code: "FORM" })
      return
    }
    check = shaped.value
  } catch (error) {
    if (error instanceof FieldError) showError(form, { field: error.field, message: error.message, code: "FORM" })
    return
  }
  const region = form.querySelector<HTMLSelectElement>("select[data-test-region]")?.value
  const withoutStored = missingSecret({ touched: undefined, ...secretsOf(form) }) !== undefined
  button.disabled = true
  box.setAttribute("aria-busy", "true")
  box.replaceChildren(element("p", "Testing…"))
  try {
    const outcome = await call("POST", "/api/v1/targets/test", {
      check,
      ...(region === undefined || region === "" ? {} : { region })
    })
    if (!outcome.ok) {
      box.replaceChildren(element("p", `Not tested: ${outcome.failure.message}`, "test-error"))
      showError(form, outcome.failure)
      return
    }
    const result = readResult(outcome.body)
    if (result === undefined) box.replaceChildren(element("p", "The test answered something unexpected.", "test-error"))
    else show(box, result, withoutStored)
  } finally {
    button.disabled = false
    box.removeAttribute("aria-busy")
  }
}

export const install = () => {
  document.addEventListener("click", (event) => {
    const target = event.target
    const button = target instanceof Element ? target.closest("button[data-test-now]") : null
    if (button instanceof HTMLButtonElement) void run(button)
  })
}
