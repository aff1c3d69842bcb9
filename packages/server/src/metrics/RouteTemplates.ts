/**
 * The route a request reached, as its template (`/api/v1/targets/:id`), for the HTTP series' `route` label: a label
 * must never carry the raw path, whose ids would make a series per monitor. Looked up in a tree of the routes'
 * segments, preferring a literal segment over a parameter over a wildcard at each step (the router's own
 * precedence, so `/api/v1/targets/test` is not labelled `/api/v1/targets/:id`), in time bounded by the path's
 * segments rather than the number of routes. Built from the same route list the server's 404/405 answers use
 * (`RouteTable`).
 */
/** The one label value of every path no route answers (scanners, typos): the label set stays bounded. */
export const UNMATCHED = "unmatched"

interface Node {
  readonly literal: Map<string, Node>
  param: Node | undefined
  /** The template of a route ending here with `*`, matching any rest. */
  wildcard: string | undefined
  /** The template of a route ending exactly here. */
  template: string | undefined
}

const node = (): Node => ({ literal: new Map(), param: undefined, wildcard: undefined, template: undefined })

export interface RouteTemplates {
  /** The template of the route answering `pathname` (query string stripped by the caller), else `UNMATCHED`. */
  readonly of: (pathname: string) => string
}

const segmentsOf = (path: string): ReadonlyArray<string> => path.split("/").filter((s) => s.length > 0)

/** A tree of the given routes' paths (methods are not told apart: a 405 is labelled with the path's template). */
export const make = (routes: ReadonlyArray<{ readonly path: string }>): RouteTemplates => {
  const root = node()
  for (const { path } of routes) {
    let at = root
    let ended = false
    for (const segment of segmentsOf(path)) {
      if (segment === "*") {
        at.wildcard ??= path
        ended = true
        break
      }
      if (segment.startsWith(":")) {
        // An optional parameter's route also answers the path without it.
        if (segment.endsWith("?")) at.template ??= path
        at.param ??= node()
        at = at.param
      } else {
        let next = at.literal.get(segment)
        if (next === undefined) {
          next = node()
          at.literal.set(segment, next)
        }
        at = next
      }
    }
    if (!ended) at.template ??= path
  }

  const find = (at: Node, segments: ReadonlyArray<string>, index: number): string | undefined => {
    if (index === segments.length) return at.template ?? at.wildcard
    const segment = segments[index]!
    const literal = at.literal.get(segment)
    const viaLiteral = literal === undefined ? undefined : find(literal, segments, index + 1)
    if (viaLiteral !== undefined) return viaLiteral
    const viaParam = at.param === undefined ? undefined : find(at.param, segments, index + 1)
    return viaParam ?? at.wildcard
  }

  return { of: (pathname) => find(root, segmentsOf(pathname), 0) ?? UNMATCHED }
}
