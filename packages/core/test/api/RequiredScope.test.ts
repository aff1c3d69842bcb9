import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Option from "effect/Option"
import { SignalmanApi } from "../../src/api/Api.js"
import { Authentication } from "../../src/api/Authentication.js"
import { SESSION_COOKIE } from "../../src/api/OpenApiDocument.js"
import { RequiredScope, type Requirement, requires, schemes } from "../../src/api/RequiredScope.js"

interface Declaration {
  readonly route: string
  readonly authenticated: boolean
  readonly requirement: Option.Option<Requirement>
}

/** Every endpoint of every group: whether `Authentication` guards it, and what it declares on itself. */
const declarations = (api: HttpApi.HttpApi.Any): ReadonlyArray<Declaration> => {
  const out: Array<Declaration> = []
  // The widening Effect's own reflection needs; every API has the props.
  HttpApi.reflect(api as HttpApi.HttpApi.AnyWithProps, {
    onGroup: () => {},
    onEndpoint: ({ group, endpoint, middleware }) => {
      out.push({
        route: `${group.identifier}.${endpoint.name} (${endpoint.method} ${endpoint.path})`,
        authenticated: [...middleware].some((tag) => tag.key === Authentication.key),
        requirement: Context.getOption(endpoint.annotations, RequiredScope)
      })
    }
  })
  return out
}

const undeclared = (api: HttpApi.HttpApi.Any) =>
  declarations(api)
    .filter((d) => d.authenticated && Option.isNone(d.requirement))
    .map((d) => d.route)

describe("RequiredScope", () => {
  it("every endpoint behind Authentication declares what it requires", () => {
    const all = declarations(SignalmanApi)
    // Not a vacuous pass: the walk reaches the authenticated groups.
    expect(all.filter((d) => d.authenticated).length).toBeGreaterThan(90)
    expect(undeclared(SignalmanApi)).toEqual([])
  })

  it("no endpoint outside Authentication declares one (nothing would enforce it)", () => {
    const stray = declarations(SignalmanApi)
      .filter((d) => !d.authenticated && Option.isSome(d.requirement))
      .map((d) => d.route)
    expect(stray).toEqual([])
  })

  it("the walk fails on an authenticated endpoint without the annotation", () => {
    const api = HttpApi.make("probe").add(
      HttpApiGroup.make("things")
        .add(HttpApiEndpoint.get("declared", "/things").annotateContext(requires("targets:read")))
        .add(HttpApiEndpoint.get("forgotten", "/things/:id"))
        .middleware(Authentication)
    )
    expect(undeclared(api)).toEqual(["things.forgotten (GET /things/:id)"])
  })

  it("the OpenAPI document shows each operation's scope as its security", () => {
    const doc = OpenApi.fromApi(SignalmanApi)
    const security = (path: string, method: "get" | "post" | "delete") => doc.paths[path]?.[method]?.security
    expect(security("/api/v1/targets", "get")).toEqual([
      { [schemes.bearer]: ["targets:read"] },
      { [schemes.session]: [] }
    ])
    expect(security("/api/v1/channels/{id}/test", "post")).toEqual([
      { [schemes.bearer]: ["channels:execute"] },
      { [schemes.session]: [] }
    ])
    expect(security("/api/v1/me/api-tokens", "post")).toEqual([{ [schemes.session]: [] }])
    expect(security("/api/v1/me", "get")).toEqual([{ [schemes.bearer]: [] }, { [schemes.session]: [] }])
    expect(security("/api/v1/targets/bulk-action", "post")).toEqual([
      { [schemes.bearer]: ["targets:write"] },
      { [schemes.bearer]: ["targets:delete"] },
      { [schemes.session]: [] }
    ])
    // Public routes promise no credential.
    expect(security("/healthz", "get")).toEqual([])
    expect(doc.components.securitySchemes).toEqual({
      [schemes.bearer]: expect.objectContaining({ type: "http", scheme: "bearer" }),
      [schemes.session]: expect.objectContaining({ type: "apiKey", in: "cookie", name: SESSION_COOKIE })
    })
  })
})
