/**
 * What the router knows, in a form the middleware can ask before routing: which methods a path answers to
 * (for 405 versus 404), what body a route takes (for the 415 rule, which applies to JSON bodies only) and which
 * request headers it declares (so a refused header is named as a header).
 */
import * as HttpApi from "@effect/platform/HttpApi"
import type { HttpMethod } from "@effect/platform/HttpMethod"
import * as Option from "effect/Option"
import * as AST from "effect/SchemaAST"

export type BodyKind = "none" | "json" | "multipart" | "other"

export interface Route {
  readonly method: HttpMethod
  readonly path: string
  readonly body: BodyKind
  /** The request headers the route's contract declares, in lower case (none when absent). */
  readonly headers?: ReadonlyArray<string>
}

interface Compiled extends Route {
  readonly pattern: RegExp
}

export interface RouteTable {
  /** The route a request would reach, if any. */
  readonly find: (method: string, pathname: string) => Route | undefined
  /** The methods a path answers to, sorted; empty when the path is unknown. */
  readonly methodsFor: (pathname: string) => ReadonlyArray<string>
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

const compile = (path: string): RegExp => {
  const parts = path.split("/").map((part) => {
    if (part.startsWith(":")) return part.endsWith("?") ? "[^/]*" : "[^/]+"
    if (part === "*") return ".*"
    return escapeRegExp(part)
  })
  return new RegExp(`^${parts.join("/")}/?$`)
}

export const make = (routes: ReadonlyArray<Route>): RouteTable => {
  const compiled: ReadonlyArray<Compiled> = routes.map((route) => ({ ...route, pattern: compile(route.path) }))
  // Asked on every request with a body: only the routes of its method are tried.
  const byMethod = new Map<string, Array<Compiled>>()
  for (const route of compiled) {
    const same = byMethod.get(route.method)
    if (same === undefined) byMethod.set(route.method, [route])
    else same.push(route)
  }
  return {
    find: (method, pathname) => byMethod.get(method)?.find((r) => r.pattern.test(pathname)),
    methodsFor: (pathname) => [...new Set(compiled.filter((r) => r.pattern.test(pathname)).map((r) => r.method))].sort()
  }
}

/** The routes of an `HttpApi` contract. */
export const fromApi = (api: HttpApi.HttpApi.Any): ReadonlyArray<Route> => {
  const routes: Array<Route> = []
  HttpApi.reflect(api as HttpApi.HttpApi.AnyWithProps, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, payloads }) => {
      const body: BodyKind =
        payloads.size === 0 || endpoint.method === "GET"
          ? "none"
          : payloads.has("application/json")
            ? "json"
            : payloads.has("multipart/form-data")
              ? "multipart"
              : "other"
      const headers = Option.match(endpoint.headersSchema, {
        onNone: () => [],
        onSome: (schema) =>
          AST.getPropertySignatures(schema.ast).flatMap((p) => (typeof p.name === "string" ? [p.name] : []))
      })
      routes.push({ method: endpoint.method, path: endpoint.path, body, headers })
    }
  })
  return routes
}
