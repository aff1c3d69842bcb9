/**
 * Raw HTTP for tests: `fetch` against the running server, answering status, headers and the parsed body, so
 * tests assert what a client sees on the wire.
 */
import * as Effect from "effect/Effect"

export interface Reply {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  /** The body parsed as JSON, or undefined when it is not JSON. */
  readonly json: unknown
}

export const request = (url: string, init: RequestInit = {}): Effect.Effect<Reply> =>
  Effect.promise(async () => {
    const response = await fetch(url, { ...init, redirect: "manual" })
    const text = await response.text()
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      json = undefined
    }
    return { status: response.status, headers: response.headers, text, json }
  })

/** The error object of an envelope, or a failure explaining what came instead. */
export const envelope = (reply: Reply) => {
  const body = reply.json
  if (typeof body !== "object" || body === null || !("error" in body)) {
    throw new Error(`expected an error envelope, got ${reply.status} ${reply.text.slice(0, 300)}`)
  }
  return body.error as {
    code: string
    message: string
    field: string | null
    details: Record<string, unknown>
    trace_id: string | null
  }
}
