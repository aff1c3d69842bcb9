/**
 * Raw HTTP for tests: `fetch` against the running server, answering status, headers and the parsed body, so
 * tests assert what a client sees on the wire. Bodies are read through the contract's schemas (core's resource
 * schemas and the error envelope): a body that does not match fails the test with the body in the message.
 */
import * as ApiError from "@signalman/core/ApiError"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"

export interface Reply {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  /** The body parsed as JSON, or undefined when it is not JSON. */
  readonly json: unknown
}

/** What a decode needs of an answer: raw sockets and other clients build one from the bytes they read. */
export type Body = Pick<Reply, "status" | "text" | "json">

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** `fetch` with redirects left to the test; `json` sends a JSON body (and its content type). */
export const request = (url: string, init: RequestInit & { readonly json?: unknown } = {}): Effect.Effect<Reply> =>
  Effect.promise(async () => {
    const { json, ...rest } = init
    const headers = new Headers(rest.headers)
    if (json !== undefined) headers.set("content-type", "application/json")
    const response = await fetch(url, {
      ...rest,
      headers,
      redirect: "manual",
      ...(json === undefined ? {} : { method: rest.method ?? "POST", body: JSON.stringify(json) })
    })
    const text = await response.text()
    return { status: response.status, headers: response.headers, text, json: parseJson(text) }
  })

/** A body read some other way (a raw socket, a file), as a decode takes it. */
export const body = (status: number, text: string): Body => ({ status, text, json: parseJson(text) })

const mismatch = (reply: Body, schema: Schema.Schema.Any, issue: string) =>
  new Error(
    `the body of a ${reply.status} answer is not ${String(schema.ast)}:\n${issue}\nbody: ${reply.text.slice(0, 2000)}`
  )

/**
 * The body decoded with a schema of the contract: the values an SDK client would get (ids branded, dates as
 * `DateTime`, keys the schema does not name dropped). Throws, failing the test, when the body does not match.
 */
export const decode = <A, I>(reply: Body, schema: Schema.Schema<A, I>): A => {
  // Every mismatch in the message, not only the first, so one failing run shows all that differs from the contract.
  const decoded = Schema.decodeUnknownEither(schema, { errors: "all" })(reply.json)
  if (Either.isLeft(decoded)) throw mismatch(reply, schema, ParseResult.TreeFormatter.formatErrorSync(decoded.left))
  return decoded.right
}

/**
 * The body exactly as sent (every key, dates as the server wrote them), once the contract's schema has decoded it:
 * for assertions on the wire form, such as comparing two answers or matching a timestamp's format.
 */
export const wire = <A, I>(reply: Body, schema: Schema.Schema<A, I>): I => {
  decode(reply, schema)
  // The full decode above checked every refinement; this guard only lets the type system see the encoded shape.
  const json = reply.json
  if (!Schema.is(Schema.encodedSchema(schema))(json)) {
    throw mismatch(reply, schema, "decodes, but is not of the schema's encoded shape")
  }
  return json
}

/** Asserts the status (the body in the failure) and decodes the body with the contract's success schema. */
export const expectOk = <A, I>(reply: Body, schema: Schema.Schema<A, I>, status = 200): A => {
  if (reply.status !== status) {
    throw new Error(`expected ${status}, got ${reply.status}: ${reply.text.slice(0, 2000)}`)
  }
  return decode(reply, schema)
}

/** The error object of an envelope (as sent, every key), or a failure explaining what came instead. */
export const envelope = (reply: Body) => wire(reply, ApiError.ErrorEnvelope).error

/** A refusal's status, code and field, for one assertion per case. */
export const refusal = (reply: Body) => {
  const error = envelope(reply)
  return { status: reply.status, code: error.code, field: error.field }
}
