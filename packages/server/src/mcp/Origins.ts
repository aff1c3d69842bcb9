/**
 * DNS-rebinding protection for `/mcp` (the MCP transport's security warning): a request that carries an `Origin`
 * comes from a browser page, and is admitted only from the service's own origins. A request without one (an MCP
 * client, a CLI) is not a browser's and passes; the bearer token still decides who it is.
 */
import * as ApiError from "@signalman/core/ApiError"

/** The origin of a URL in its canonical form (`https://example.com`), or undefined when it is not a URL. */
const originOf = (url: string): string | undefined => {
  try {
    const origin = new URL(url).origin
    // Opaque origins (`null`, `file:`) never name a page of ours.
    return origin === "null" ? undefined : origin
  } catch {
    return undefined
  }
}

/** The service's own origins, from the configured URLs (unset ones left out). */
export const own = (urls: ReadonlyArray<string | undefined>): ReadonlySet<string> =>
  new Set(urls.flatMap((url) => (url === undefined ? [] : (originOf(url) ?? []))))

/** The refusal of a request whose `Origin` is not one of `allowed`; undefined when it may go on. */
export const refusal = (origin: string | undefined, allowed: ReadonlySet<string>): ApiError.ApiError | undefined => {
  if (origin === undefined) return undefined
  const canonical = originOf(origin)
  if (canonical !== undefined && allowed.has(canonical)) return undefined
  return ApiError.make("ORIGIN_NOT_ALLOWED", `Requests from the origin ${origin} are not accepted on /mcp`, {
    field: "Origin",
    details: { allowed: [...allowed] }
  })
}
