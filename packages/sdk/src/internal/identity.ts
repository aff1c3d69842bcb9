/**
 * How a client names itself. `User-Agent` where the platform lets a script set it (Node, Deno, Bun, workers of the
 * edge); browsers drop it, so there the same value also goes as `X-Signalman-Client`.
 *
 * @internal
 */

/**
 * Whether this runs in a browser (a page or one of its workers): a `navigator` whose user agent is not a server
 * runtime's (Node 21+, Deno and Bun have a `navigator` too).
 *
 * @internal
 */
export const inBrowser = (): boolean => {
  const navigator: unknown = Reflect.get(globalThis, "navigator")
  if (typeof navigator !== "object" || navigator === null) return false
  const agent: unknown = Reflect.get(navigator, "userAgent")
  return typeof agent === "string" && !/^(Node\.js|Deno|Bun)\//.test(agent)
}

/**
 * The headers that name the client.
 *
 * @internal
 */
export const identityHeaders = (userAgent: string, browser: boolean): ReadonlyArray<readonly [string, string]> =>
  browser
    ? [
        ["user-agent", userAgent],
        ["x-signalman-client", userAgent]
      ]
    : [["user-agent", userAgent]]
