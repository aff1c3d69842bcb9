/**
 * The contract's `RequiredScope` annotations as a lookup by route, built once at startup, so the authentication
 * middleware finds what the route a request reached requires with two map reads and no allocation.
 */
import * as HttpApi from "@effect/platform/HttpApi"
import type { Requirement } from "@signalman/core/api/RequiredScope"
import { RequiredScope } from "@signalman/core/api/RequiredScope"
import * as Context from "effect/Context"

export interface RouteRequirements {
  /** What the route `method` + `path` (its pattern, as declared: `/api/v1/targets/:id`) requires, if annotated. */
  readonly of: (method: string, path: string) => Requirement | undefined
}

export const fromApi = (api: HttpApi.HttpApi.Any): RouteRequirements => {
  const byMethod = new Map<string, Map<string, Requirement>>()
  // `Any` to `AnyWithProps` is the widening Effect's own builders make (as RouteTable and OpenApiRoute do): a
  // concrete API's schema types are not assignable to `any`-typed props, though every API has them.
  HttpApi.reflect(api as HttpApi.HttpApi.AnyWithProps, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      // The endpoint's own annotation only: a group-wide one would hide an endpoint that was never considered.
      const requirement = Context.getOrElse(endpoint.annotations, RequiredScope, () => undefined)
      if (requirement === undefined) return
      const paths = byMethod.get(endpoint.method) ?? new Map<string, Requirement>()
      paths.set(endpoint.path, requirement)
      byMethod.set(endpoint.method, paths)
    }
  })
  return { of: (method, path) => byMethod.get(method)?.get(path) }
}
