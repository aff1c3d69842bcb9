/**
 * The headers every answer of the Effect handler carries (service-api.md, "Conventions"), set by the node listener
 * rather than per response inside the runtime:
 *
 * - `X-Request-Id`, settled once per request (`RequestContext`) and written back into the request's headers;
 * - the default `Cache-Control` of an `/api/v1/*` answer, by method (a handler's own value wins);
 * - the JSON charset: Effect labels JSON bodies plain `application/json`, the spec wants `charset=utf-8`.
 *
 * Node merges headers given to `setHeader` before the response with those `writeHead` gets, the latter winning, so
 * defaults set here never override what a handler chose. Doing this in the listener costs a few property writes
 * per request; the pre-response handler it replaces rebuilt every response inside the fiber.
 */
import * as Http from "node:http"
import { chooseRequestId } from "./RequestContext.js"

const JSON_TYPE = "application/json"
const JSON_UTF8 = "application/json; charset=utf-8"

/** service-api.md, Conventions item 4: the Cache-Control of an `/api/v1/*` response follows its method. */
export const cacheControlFor = (method: string, pathname: string): string | undefined => {
  if (!pathname.startsWith("/api/v1/")) return undefined
  if (method === "GET" || method === "HEAD" || method === "OPTIONS") {
    return pathname === "/api/v1/dashboard/summary" ? "private, max-age=5" : "private, max-age=10"
  }
  return "no-store"
}

const pathnameOf = (url: string): string => {
  const q = url.indexOf("?")
  return q === -1 ? url : url.slice(0, q)
}

/** Settles the request id and sets the default headers, before the request is handed to the Effect handler. */
export const prepare = (request: Http.IncomingMessage, response: Http.ServerResponse): void => {
  const header = request.headers["x-request-id"]
  const requestId = chooseRequestId(typeof header === "string" ? header : undefined)
  request.headers["x-request-id"] = requestId
  response.setHeader("x-request-id", requestId)
  const cacheControl = cacheControlFor(request.method ?? "GET", pathnameOf(request.url ?? "/"))
  if (cacheControl !== undefined) response.setHeader("cache-control", cacheControl)
}

type HeadersArgument = Http.OutgoingHttpHeaders | Array<Http.OutgoingHttpHeader> | undefined

const withCharset = (headers: HeadersArgument): HeadersArgument =>
  headers !== undefined && !Array.isArray(headers) && headers["content-type"] === JSON_TYPE
    ? { ...headers, "content-type": JSON_UTF8 }
    : headers

/** A server response that spells out the JSON charset whatever wrote the head. */
export class Response<
  Request extends Http.IncomingMessage = Http.IncomingMessage
> extends Http.ServerResponse<Request> {
  override writeHead(
    statusCode: number,
    statusMessage?: string | Http.OutgoingHttpHeaders | Array<Http.OutgoingHttpHeader>,
    headers?: Http.OutgoingHttpHeaders | Array<Http.OutgoingHttpHeader>
  ): this {
    if (typeof statusMessage === "string") return super.writeHead(statusCode, statusMessage, withCharset(headers))
    const only = withCharset(statusMessage)
    return only === undefined ? super.writeHead(statusCode) : super.writeHead(statusCode, only)
  }
}
