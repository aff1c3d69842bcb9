/**
 * The monitor form's body in the API's shapes, from what its fields read as (forms.ts `bodyOf`): headers written as
 * `Name: value` lines become a map, an expected status written as text becomes a code, a list or a class, channel
 * ids become alert bindings, and a region policy of "a number of regions" needs its number. On an edit only the
 * sections a person changed are sent: a PATCH keeps what it does not name, and a check is saved whole, so an
 * unchanged check is left out and its stored credentials stay. A changed check carrying a stored credential the
 * page never saw (it is redacted) must have it entered again or removed; sending the sentinel back would be 400
 * REDACTION_SENTINEL, and leaving it out would drop it.
 *
 * Pure (no DOM), so its rules are unit-tested; client/editor.ts gathers what it needs from the page.
 */

export type Shaped<A> =
  | { readonly ok: true; readonly value: A }
  | { readonly ok: false; readonly field: string; readonly message: string }

const ok = <A>(value: A): Shaped<A> => ({ ok: true, value })
const refuse = <A>(field: string, message: string): Shaped<A> => ({ ok: false, field, message })

/** A JSON object (not an array, not null). */
export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** `Name: value` lines as a header map; a line without a colon, or a name given twice, is refused. */
export const parseHeaders = (text: string): Shaped<Record<string, string>> => {
  const headers: Record<string, string> = {}
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === "") continue
    const colon = line.indexOf(":")
    const name = colon === -1 ? "" : line.slice(0, colon).trim()
    if (name === "") return refuse("check.headers", `Write each header as Name: value (not “${line.trim()}”)`)
    const taken = Object.keys(headers).find((existing) => existing.toLowerCase() === name.toLowerCase())
    if (taken !== undefined) return refuse("check.headers", `The header ${name} is given twice`)
    headers[name] = line.slice(colon + 1).trim()
  }
  return ok(headers)
}

/** `200` → 200, `200, 204` → [200, 204]; anything else (`2xx`, `200-399`) as written, for the API to judge. */
export const parseExpectedStatus = (text: string): number | ReadonlyArray<number> | string => {
  const trimmed = text.trim()
  if (/^\d+$/.test(trimmed)) return Number(trimmed)
  if (/^\d+(\s*,\s*\d+)+$/.test(trimmed)) return trimmed.split(",").map((code) => Number(code.trim()))
  return trimmed
}

/** A field standing for a stored credential: its name now, the credential it belongs to, and whether it is empty. */
export interface StoredSecret {
  readonly name: string
  /** `check.basic_auth`, `check.bearer_token`, or `fill` for a flow step's value. */
  readonly group: string
  readonly empty: boolean
}

/** The check in the API's shapes. */
export const shapeCheck = (check: Record<string, unknown>): Shaped<Record<string, unknown>> => {
  const shaped: Record<string, unknown> = { ...check }
  if (typeof check["headers"] === "string") {
    const headers = parseHeaders(check["headers"])
    if (!headers.ok) return headers
    shaped["headers"] = headers.value
  }
  if (typeof check["expected_status"] === "string") {
    shaped["expected_status"] = parseExpectedStatus(check["expected_status"])
  }
  // Either half of basic authentication makes the pair; an empty half is an empty string, not a missing key.
  const basic = check["basic_auth"]
  if (isRecord(basic)) shaped["basic_auth"] = { username: "", password: "", ...basic }
  return ok(shaped)
}

export interface Context {
  /** An edit sends only the sections changed (top-level keys); a create sends everything. */
  readonly touched: ReadonlySet<string> | undefined
  readonly secrets: ReadonlyArray<StoredSecret>
  /** Stored credentials the person chose to remove. */
  readonly cleared: ReadonlySet<string>
}

/** Whether a sent check would lose a stored credential nobody entered again: the first such field. */
export const missingSecret = (context: Context): StoredSecret | undefined =>
  context.secrets.find((secret) => secret.empty && !context.cleared.has(secret.group))

/** The body to send, or the field to refuse on. */
export const shapeBody = (raw: Record<string, unknown>, context: Context): Shaped<Record<string, unknown>> => {
  const body: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(raw)) {
    if (context.touched === undefined || context.touched.has(key)) body[key] = value
  }
  if (Array.isArray(body["alerts"])) {
    body["alerts"] = body["alerts"].map((channel_id: unknown) => ({ channel_id }))
  }
  if (body["region_policy"] === "count") return refuse("region_policy.count", "Enter how many regions must agree")
  const check = body["check"]
  if (isRecord(check)) {
    const missing = missingSecret(context)
    if (missing !== undefined) {
      return refuse(
        missing.name,
        missing.group === "fill"
          ? "This fill value is stored and never shown: a changed flow is saved whole, so enter it again"
          : "This credential is stored and never shown: a changed check is saved whole, so enter it again or remove it"
      )
    }
    const shaped = shapeCheck(check)
    if (!shaped.ok) return shaped
    body["check"] = shaped.value
  }
  return ok(body)
}
