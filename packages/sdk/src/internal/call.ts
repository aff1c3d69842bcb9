/**
 * One method of a Promise client: its arguments read by the endpoint's plan into a request, the request sent by the
 * transport, the answer decoded by the contract's schema for its status or turned into a `SignalmanError`.
 *
 * @internal
 */
import * as ApiError from "@signalman/core/ApiError"
import * as DateTime from "effect/DateTime"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { PageRequest } from "../PageRequest.js"
import { SignalmanError } from "../SignalmanError.js"
import type { EndpointPlan } from "./endpoints.js"
import * as Transport from "./transport.js"

/**
 * What every call of one client shares.
 *
 * @internal
 */
export interface ClientSettings {
  /** The service origin, without a trailing slash. */
  readonly baseUrl: string
  /** The client's headers: identity, credentials, org, and the caller's own. */
  readonly headers: Headers
  /** How calls are sent: `fetch`, retries, timeout. */
  readonly transport: Transport.TransportSettings
}

interface CallOptions {
  readonly idempotencyKey: string | undefined
  readonly signal: AbortSignal | undefined
  readonly timeoutMs: number | undefined
  readonly headers: ReadonlyArray<readonly [string, string]>
}

type Fields = Readonly<Record<string, unknown>>

const isFields = (value: unknown): value is Fields =>
  typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof FormData)

const invalid = (field: string, message: string) =>
  new SignalmanError({ status: 0, code: "INVALID_ARGUMENT", message, field, details: {}, traceId: null })

const readOptions = (value: unknown): CallOptions => {
  const options = isFields(value) ? value : {}
  const { idempotencyKey, signal, timeoutMs, headers } = options
  return {
    idempotencyKey: typeof idempotencyKey === "string" ? idempotencyKey : undefined,
    signal: signal instanceof AbortSignal ? signal : undefined,
    timeoutMs: typeof timeoutMs === "number" ? timeoutMs : undefined,
    headers: isFields(headers)
      ? Object.entries(headers).flatMap(([name, v]) => (typeof v === "string" ? [[name, v] as const] : []))
      : []
  }
}

interface Arguments {
  readonly path: Fields
  readonly input: unknown
  readonly options: CallOptions
}

// Positional by the plan: the path's parameter (or an object of several), the input when the endpoint takes one,
// then the options.
const readArguments = (plan: EndpointPlan, args: ReadonlyArray<unknown>): Arguments => {
  let next = 0
  let path: Fields = {}
  const [only] = plan.pathParams
  if (plan.pathParams.length === 1 && only !== undefined) path = { [only]: args[next++] }
  else if (plan.pathParams.length > 1) {
    const given = args[next++]
    path = isFields(given) ? given : {}
  }
  const input = plan.body !== undefined || plan.queryKeys !== undefined ? args[next++] : undefined
  return { path, input, options: readOptions(args[next]) }
}

const fillPath = (plan: EndpointPlan, values: Fields): string =>
  plan.path.replace(/:(\w+)/g, (_, name: string) => {
    const value = values[name]
    if (typeof value !== "string" || value === "") {
      throw invalid(name, `${plan.namespace ?? "client"}.${plan.name}: ${name} must be a non-empty string`)
    }
    return encodeURIComponent(value)
  })

const queryValue = (value: unknown): ReadonlyArray<string> => {
  if (value === undefined || value === null) return []
  if (Array.isArray(value)) return value.flatMap(queryValue)
  if (DateTime.isDateTime(value)) return [DateTime.formatIso(value)]
  if (value instanceof Date) return [value.toISOString()]
  return [String(value)]
}

interface Split {
  readonly query: URLSearchParams
  readonly body: unknown
}

// A query-only input goes whole to the URL; where an endpoint takes both, the query's keys go there and the rest is
// the body.
const split = (plan: EndpointPlan, input: unknown): Split => {
  const query = new URLSearchParams()
  const queryKeys = plan.queryKeys
  if (queryKeys === undefined) return { query, body: input }
  if (!isFields(input)) return { query, body: undefined }
  const body: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(input)) {
    if (plan.body === undefined || queryKeys.has(key)) for (const v of queryValue(value)) query.append(key, v)
    else body[key] = value
  }
  return { query, body: plan.body === undefined ? undefined : body }
}

const encodeBody = (plan: EndpointPlan, body: unknown): string | FormData | undefined => {
  switch (plan.body) {
    case undefined:
      return undefined
    case "json":
      // The service refuses a JSON route with no body at all; an omitted input is the empty object it means.
      return JSON.stringify(body ?? {})
    case "multipart": {
      const form = new FormData()
      const parts = isFields(body) && isFields(body["parts"]) ? body["parts"] : {}
      for (const [name, part] of Object.entries(parts)) {
        if (part instanceof Blob) form.append(name, part)
        else if (typeof part === "string") form.append(name, part)
      }
      return form
    }
  }
}

const excerpt = (body: Uint8Array) => new TextDecoder().decode(body.subarray(0, 2000))

const unexpected = (plan: EndpointPlan, incoming: Transport.Incoming, why: string, issue?: string) =>
  new SignalmanError({
    status: incoming.status,
    code: "UNEXPECTED_RESPONSE",
    message: `${plan.method} ${plan.path} (${plan.id}): ${why}`,
    field: null,
    details: { body: excerpt(incoming.body), ...(issue === undefined ? {} : { issue }) },
    traceId: incoming.headers.get("x-request-id")
  })

const decodeEnvelope = Schema.decodeUnknownEither(Schema.parseJson(ApiError.ErrorEnvelope))

const refusal = (plan: EndpointPlan, incoming: Transport.Incoming): SignalmanError => {
  const envelope = decodeEnvelope(new TextDecoder().decode(incoming.body))
  if (Either.isLeft(envelope)) {
    return unexpected(plan, incoming, `answered ${incoming.status} without the service's error envelope`)
  }
  const { error } = envelope.right
  return new SignalmanError({
    status: incoming.status,
    code: error.code,
    message: error.message,
    field: error.field,
    details: error.details,
    traceId: error.trace_id ?? incoming.headers.get("x-request-id")
  })
}

const answer = (plan: EndpointPlan, incoming: Transport.Incoming): unknown => {
  if (incoming.status < 200 || incoming.status > 299) throw refusal(plan, incoming)
  const [only] = plan.successes.values()
  const decode = plan.successes.get(incoming.status) ?? (plan.successes.size === 1 ? only : undefined)
  if (decode === undefined) throw unexpected(plan, incoming, `answered ${incoming.status}, which it does not declare`)
  const decoded = decode(incoming.body)
  if (Either.isLeft(decoded)) throw unexpected(plan, incoming, "the answer does not match the contract", decoded.left)
  return decoded.right
}

const send = async (plan: EndpointPlan, settings: ClientSettings, args: Arguments, input: unknown) => {
  const { query, body } = split(plan, input)
  const search = query.toString()
  const url = `${settings.baseUrl}${fillPath(plan, args.path)}${search === "" ? "" : `?${search}`}`
  const headers = new Headers(settings.headers)
  const encoded = encodeBody(plan, body)
  if (typeof encoded === "string") headers.set("content-type", "application/json")
  const { options } = args
  if (options.idempotencyKey !== undefined) headers.set("idempotency-key", options.idempotencyKey)
  for (const [name, value] of options.headers) headers.set(name, value)
  const incoming = await Transport.send({ method: plan.method, url, headers, body: encoded }, settings.transport, {
    signal: options.signal,
    timeoutMs: options.timeoutMs,
    idempotent: options.idempotencyKey !== undefined
  })
  return answer(plan, incoming)
}

const count = (value: unknown): number | undefined => {
  const n = typeof value === "string" && /^\d+$/.test(value) ? Number(value) : value
  return typeof n === "number" && Number.isInteger(n) && n >= 0 ? n : undefined
}

/**
 * The method of `plan` on a client with `settings`: a Promise of the decoded answer, or a `PageRequest` for a
 * paginated list. Rejects with a `SignalmanError`.
 *
 * @internal
 */
export const method =
  (plan: EndpointPlan, settings: ClientSettings) =>
  (...args: ReadonlyArray<unknown>): Promise<unknown> | PageRequest<unknown> => {
    let parsed: Arguments
    try {
      parsed = readArguments(plan, args)
      // Checked before anything is sent, so a bad id rejects without a request.
      fillPath(plan, parsed.path)
    } catch (error) {
      return Promise.reject(error)
    }
    if (!plan.paginated) return send(plan, settings, parsed, parsed.input)
    const input = isFields(parsed.input) ? parsed.input : {}
    return new PageRequest<unknown>(
      (offset, limit) =>
        send(plan, settings, parsed, {
          ...input,
          ...(offset === undefined ? {} : { offset }),
          ...(limit === undefined ? {} : { limit })
        }).then((page) => {
          if (!isPage(page)) throw new Error(`${plan.id}: a page without data, total, limit and offset`)
          return page
        }),
      count(input["offset"]),
      count(input["limit"])
    )
  }

const isPage = (
  value: unknown
): value is { data: ReadonlyArray<unknown>; total: number; limit: number; offset: number } =>
  isFields(value) && Array.isArray(value["data"]) && typeof value["total"] === "number"
