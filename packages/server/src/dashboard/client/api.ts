/**
 * Calls to the JSON API from the dashboard: the session cookie rides along, every state-changing call carries the
 * CSRF header, and the org the page was rendered for is named, so a tab opened on one org never writes to another.
 * Errors come back as the API's envelope (`error.code`, `error.message`, `error.field`).
 */

export interface ApiFailure {
  readonly status: number
  readonly code: string
  readonly message: string
  readonly field: string | null
}

export type ApiOutcome =
  | { readonly ok: true; readonly status: number; readonly body: unknown }
  | { readonly ok: false; readonly failure: ApiFailure }

const orgSlug = (): string | null =>
  document.querySelector<HTMLMetaElement>('meta[name="signalman-org"]')?.content ?? null

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The envelope's fields, or a generic failure when the body is not one (a proxy's page, a dropped connection). */
const failureOf = (status: number, body: unknown): ApiFailure => {
  const error = isRecord(body) ? body["error"] : undefined
  if (isRecord(error)) {
    return {
      status,
      code: typeof error["code"] === "string" ? error["code"] : "ERROR",
      message: typeof error["message"] === "string" ? error["message"] : `The service answered ${status}`,
      field: typeof error["field"] === "string" ? error["field"] : null
    }
  }
  return { status, code: "ERROR", message: `The service answered ${status}`, field: null }
}

/** A call with a JSON body, or with a `FormData` body sent as `multipart/form-data` (an upload). */
export const call = async (method: string, path: string, body?: unknown): Promise<ApiOutcome> => {
  const headers: Record<string, string> = { accept: "application/json" }
  if (method !== "GET") headers["x-requested-with"] = "signalman"
  const org = orgSlug()
  if (org !== null && path.startsWith("/api/")) headers["x-signalman-org"] = org
  const multipart = body instanceof FormData
  // The browser writes a multipart body's content type itself, with its boundary.
  if (body !== undefined && !multipart) headers["content-type"] = "application/json"
  let response: Response
  try {
    response = await fetch(path, {
      method,
      headers,
      credentials: "same-origin",
      ...(body === undefined ? {} : { body: multipart ? body : JSON.stringify(body) })
    })
  } catch {
    return {
      ok: false,
      failure: { status: 0, code: "NETWORK", message: "Could not reach Signalman. Check your connection.", field: null }
    }
  }
  const text = await response.text()
  let parsed: unknown = null
  if (text !== "") {
    try {
      parsed = JSON.parse(text)
    } catch {
      parsed = text
    }
  }
  return response.ok
    ? { ok: true, status: response.status, body: parsed }
    : { ok: false, failure: failureOf(response.status, parsed) }
}

/** The value at a path of a response body: `id`, `org.slug`, `data[0].id`. */
const lookup = (body: unknown, path: string): unknown =>
  path
    .split(/[.[\]]+/)
    .filter((key) => key !== "")
    .reduce<unknown>(
      (node, key) => (Array.isArray(node) ? node[Number(key)] : isRecord(node) ? node[key] : undefined),
      body
    )

/**
 * `{id}`-style placeholders in a path template filled from a response body: a top-level field, or a path into it
 * (`{data[0].id}`, for answers that wrap what they made, such as a duplicate's).
 */
export const fill = (template: string, body: unknown): string =>
  template.replace(/\{([\w.[\]]+)\}/g, (whole, path: string) => {
    const value = lookup(body, path)
    return typeof value === "string" || typeof value === "number" ? encodeURIComponent(String(value)) : whole
  })
