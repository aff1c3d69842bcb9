/**
 * Dashboard forms post to the JSON API. A `<form data-api="/api/v1/targets" data-method="POST">` is turned into a
 * JSON body by its fields' names, which are the API's own paths (`check.url`, `check.steps[1].selector`), so an error
 * the API names by `field` lands on the input of that name (or, failing that, the nearest enclosing path a field or a
 * `[data-field]` block claims). How a field's value is read, from its `data-type`:
 *
 * - none: the text; an empty text is left out, so the API applies its default (`data-empty="null"` sends null,
 *   `data-empty="keep"` sends "");
 * - `number`: a number (left out when empty, the same `data-empty` choices);
 * - `boolean`: a checkbox's checked state, always sent;
 * - `set`: every checked checkbox of that name, as an array (empty when none);
 * - `lines`: a textarea's non-empty lines, as an array; `csv`: comma-separated values, as an array;
 * - `json`: the text parsed as JSON (a parse error is shown on the field, nothing is sent);
 * - `instant`: a `datetime-local` value, meant in the viewer's time zone, sent as an RFC 3339 instant in UTC (left
 *   out when empty, the same `data-empty` choices; a value that is no date and time is shown on the field);
 * - `select multiple`: the selected values, as an array.
 *
 * Disabled fields (and fields in a disabled fieldset, such as another kind's) are not sent. Before sending, the form
 * dispatches a cancelable `signalman:submit` whose `detail.body` a page script may reshape in place (a body the
 * field types cannot say, such as a list of objects), or refuse by showing its error and cancelling the event. After
 * success the form goes to `data-redirect` (placeholders such as `{id}` filled from the answer), to the URL the
 * answer's field named by `data-follow` holds as it is (a checkout answers the payment provider's page), reloads
 * (`data-reload`), or shows `data-done` in its status line; either way it dispatches `signalman:done` with the
 * answer for page scripts.
 */
import { type ApiFailure, call, fill } from "./api.js"
import { instantOf } from "./instants.js"

type Segment = string | number

/** `check.steps[1].selector` → ["check", "steps", 1, "selector"]. */
export const parsePath = (path: string): ReadonlyArray<Segment> => {
  const segments: Array<Segment> = []
  for (const part of path.split(".")) {
    const match = /^([^[\]]*)((?:\[\d+\])*)$/.exec(part)
    if (match === null) {
      segments.push(part)
      continue
    }
    if (match[1] !== undefined && match[1] !== "") segments.push(match[1])
    for (const index of (match[2] ?? "").matchAll(/\[(\d+)\]/g)) segments.push(Number(index[1]))
  }
  return segments
}

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }
type Container = Record<string, unknown> | Array<unknown>

const isContainer = (value: unknown): value is Container => typeof value === "object" && value !== null

const assign = (root: Record<string, unknown>, path: ReadonlyArray<Segment>, value: Json): void => {
  let node: Container = root
  path.forEach((segment, i) => {
    const last = i === path.length - 1
    const nextIsIndex = typeof path[i + 1] === "number"
    if (Array.isArray(node)) {
      const index = typeof segment === "number" ? segment : Number(segment)
      if (last) node[index] = value
      else {
        const existing: unknown = node[index]
        const child: Container = isContainer(existing) ? existing : nextIsIndex ? [] : {}
        node[index] = child
        node = child
      }
    } else {
      const key = String(segment)
      if (last) node[key] = value
      else {
        const existing: unknown = node[key]
        const child: Container = isContainer(existing) ? existing : nextIsIndex ? [] : {}
        node[key] = child
        node = child
      }
    }
  })
}

/** A value a field holds that cannot be read (not a number, not JSON), named by the field. */
export class FieldError extends Error {
  constructor(
    readonly field: string,
    message: string
  ) {
    super(message)
  }
}

type Field = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement

const isField = (element: Element): element is Field =>
  element instanceof HTMLInputElement || element instanceof HTMLSelectElement || element instanceof HTMLTextAreaElement

const emptyValue = (field: Field): Json | undefined => {
  switch (field.dataset["empty"]) {
    case "null":
      return null
    case "keep":
      return ""
    default:
      return undefined
  }
}

/** The JSON value a field contributes, or undefined to leave it out. */
const fieldValue = (field: Field, form: HTMLFormElement): Json | undefined => {
  const type = field.dataset["type"]
  if (field instanceof HTMLSelectElement && field.multiple) {
    return [...field.selectedOptions].map((o) => o.value)
  }
  if (field instanceof HTMLInputElement && field.type === "checkbox") {
    if (type === "set") {
      return [...form.querySelectorAll<HTMLInputElement>(`input[type=checkbox][name="${CSS.escape(field.name)}"]`)]
        .filter((box) => box.checked && !box.disabled)
        .map((box) => box.value)
    }
    return field.checked
  }
  if (field instanceof HTMLInputElement && field.type === "radio") {
    return field.checked ? field.value : undefined
  }
  const text = field.value
  switch (type) {
    case "number": {
      if (text.trim() === "") return emptyValue(field)
      const n = Number(text)
      if (!Number.isFinite(n)) throw new FieldError(field.name, "Enter a number")
      return n
    }
    case "boolean":
      return text === "true"
    case "lines":
      return text
        .split(/\r?\n/)
        .map((line) => line.trim())
        .filter((line) => line !== "")
    case "csv":
      return text
        .split(",")
        .map((item) => item.trim())
        .filter((item) => item !== "")
    case "json": {
      if (text.trim() === "") return emptyValue(field)
      try {
        const parsed: Json = JSON.parse(text)
        return parsed
      } catch {
        throw new FieldError(field.name, "This is not valid JSON")
      }
    }
    case "instant": {
      if (text.trim() === "") return emptyValue(field)
      const instant = instantOf(text)
      if (instant === undefined) throw new FieldError(field.name, "Enter a date and time")
      return instant
    }
    default:
      return text === "" ? emptyValue(field) : text
  }
}

/** The body a form stands for. Throws `FieldError` for a value that cannot be read. */
export const bodyOf = (form: HTMLFormElement): Record<string, unknown> => {
  const body: Record<string, unknown> = {}
  const seen = new Set<string>()
  for (const element of form.elements) {
    if (!isField(element) || element.name === "" || element.disabled) continue
    if (element.closest("fieldset:disabled") !== null) continue
    // A set of checkboxes is read once, from its first box.
    if (element.dataset["type"] === "set") {
      if (seen.has(element.name)) continue
      seen.add(element.name)
    }
    const value = fieldValue(element, form)
    if (value === undefined) continue
    assign(body, parsePath(element.name), value)
  }
  return body
}

/** What `signalman:submit` carries: the body about to be sent, which a listener may change in place. */
export interface SubmitDetail {
  readonly body: Record<string, unknown>
}

/** Removes the errors a previous attempt showed. */
export const clearErrors = (form: HTMLFormElement) => {
  for (const node of form.querySelectorAll("[data-field-error]")) node.remove()
  for (const node of form.querySelectorAll("[aria-invalid=true]")) {
    node.removeAttribute("aria-invalid")
    const described = (node.getAttribute("aria-describedby") ?? "")
      .split(" ")
      .filter((id) => !id.startsWith("err-"))
      .join(" ")
    if (described === "") node.removeAttribute("aria-describedby")
    else node.setAttribute("aria-describedby", described)
  }
  const status = form.querySelector<HTMLElement>("[data-form-status]")
  if (status !== null) {
    status.textContent = ""
    status.classList.remove("error")
  }
}

/** The element an error path belongs to: the field of that name, else of the nearest enclosing path. */
const targetOf = (form: HTMLFormElement, field: string): HTMLElement | null => {
  let path = field
  for (;;) {
    const named =
      form.querySelector<HTMLElement>(`[name="${CSS.escape(path)}"]:not([type=hidden])`) ??
      form.querySelector<HTMLElement>(`[data-field="${CSS.escape(path)}"]`)
    if (named !== null) return named
    const cut = Math.max(path.lastIndexOf("."), path.lastIndexOf("["))
    if (cut <= 0) return null
    path = path.slice(0, cut)
  }
}

let errorCount = 0

/** Shows an error on the field it names (or on the form), says it to assistive technology, and focuses it. */
export const showError = (form: HTMLFormElement, failure: Pick<ApiFailure, "field" | "message" | "code">) => {
  const target = failure.field === null ? null : targetOf(form, failure.field)
  if (target !== null) {
    const id = `err-${++errorCount}`
    const note = document.createElement("p")
    note.id = id
    note.className = "field-error"
    note.dataset["fieldError"] = failure.field ?? ""
    note.textContent = failure.message
    target.setAttribute("aria-invalid", "true")
    target.setAttribute("aria-describedby", `${target.getAttribute("aria-describedby") ?? ""} ${id}`.trim())
    const anchor = target.closest(".field") ?? target
    anchor.insertAdjacentElement(anchor === target ? "afterend" : "beforeend", note)
    target.focus()
  }
  const status = form.querySelector<HTMLElement>("[data-form-status]")
  if (status !== null) {
    status.textContent = target === null ? failure.message : `Check the highlighted field: ${failure.message}`
    status.classList.add("error")
  } else if (target === null) {
    window.alert(failure.message)
  }
}

/** The answer's top-level string field, as it is (not URL-encoded as a `data-redirect` placeholder is). */
const followed = (body: unknown, key: string): string | undefined => {
  if (typeof body !== "object" || body === null) return undefined
  const value: unknown = Object.entries(body).find(([name]) => name === key)?.[1]
  return typeof value === "string" ? value : undefined
}

const finish = (form: HTMLFormElement, body: unknown) => {
  form.dispatchEvent(new CustomEvent("signalman:done", { detail: body, bubbles: true }))
  const follow = form.dataset["follow"]
  const target = follow === undefined ? undefined : followed(body, follow)
  if (target !== undefined) {
    window.location.assign(target)
    return
  }
  const redirect = form.dataset["redirect"]
  if (redirect !== undefined) {
    window.location.assign(fill(redirect, body))
    return
  }
  if (form.dataset["reload"] !== undefined) {
    window.location.reload()
    return
  }
  const status = form.querySelector<HTMLElement>("[data-form-status]")
  if (status !== null) status.textContent = form.dataset["done"] ?? "Saved."
}

const submit = async (form: HTMLFormElement, submitter: HTMLElement | null) => {
  clearErrors(form)
  const confirmText = form.dataset["confirm"]
  if (confirmText !== undefined && !window.confirm(confirmText)) return
  let body: Record<string, unknown>
  try {
    body = bodyOf(form)
  } catch (error) {
    if (error instanceof FieldError) showError(form, { field: error.field, message: error.message, code: "FORM" })
    return
  }
  const detail: SubmitDetail = { body }
  if (!form.dispatchEvent(new CustomEvent("signalman:submit", { detail, bubbles: true, cancelable: true }))) return
  const method = (form.dataset["method"] ?? "POST").toUpperCase()
  const path = form.dataset["api"] ?? ""
  form.setAttribute("aria-busy", "true")
  if (submitter instanceof HTMLButtonElement) submitter.disabled = true
  try {
    const outcome = await call(method, path, method === "GET" || method === "DELETE" ? undefined : body)
    if (outcome.ok) finish(form, outcome.body)
    else showError(form, outcome.failure)
  } finally {
    form.removeAttribute("aria-busy")
    if (submitter instanceof HTMLButtonElement) submitter.disabled = false
  }
}

/** Takes over every API form on the page (and any added later, since the listener is on the document). */
export const install = () => {
  document.addEventListener("submit", (event) => {
    const form = event.target
    if (!(form instanceof HTMLFormElement) || form.dataset["api"] === undefined) return
    event.preventDefault()
    void submit(form, event.submitter)
  })
}
