import { describe, expect, it } from "@effect/vitest"
import * as RouteTemplates from "../src/metrics/RouteTemplates.js"

const templates = RouteTemplates.make([
  { path: "/api/v1/targets" },
  { path: "/api/v1/targets/:id" },
  { path: "/api/v1/targets/test" },
  { path: "/api/v1/targets/:id/results" },
  { path: "/api/v1/targets/:id/results/:resultId/screenshot" },
  { path: "/p/:slug" },
  { path: "/docs/*" },
  { path: "/assets/:file" },
  { path: "/me/:tab?" },
  { path: "/" }
])

describe("metrics RouteTemplates", () => {
  it("answers the template of the route, never the ids of the path", () => {
    expect(templates.of("/api/v1/targets/0190a1b2-0000-7000-8000-000000000001")).toBe("/api/v1/targets/:id")
    expect(templates.of("/api/v1/targets/0190a1b2-0000-7000-8000-000000000001/results")).toBe(
      "/api/v1/targets/:id/results"
    )
    expect(templates.of("/api/v1/targets/x/results/y/screenshot")).toBe(
      "/api/v1/targets/:id/results/:resultId/screenshot"
    )
    expect(templates.of("/p/acme-status")).toBe("/p/:slug")
  })

  it("prefers a literal segment over a parameter, as the router does", () => {
    expect(templates.of("/api/v1/targets/test")).toBe("/api/v1/targets/test")
    expect(templates.of("/api/v1/targets")).toBe("/api/v1/targets")
    expect(templates.of("/api/v1/targets/")).toBe("/api/v1/targets")
  })

  it("falls back from a literal to a parameter when the literal's branch does not match the rest", () => {
    expect(templates.of("/api/v1/targets/test/results")).toBe("/api/v1/targets/:id/results")
  })

  it("matches wildcards and optional parameters", () => {
    expect(templates.of("/docs/engine/probes")).toBe("/docs/*")
    expect(templates.of("/me")).toBe("/me/:tab?")
    expect(templates.of("/me/tokens")).toBe("/me/:tab?")
    expect(templates.of("/")).toBe("/")
  })

  it("labels every path no route answers with one value", () => {
    expect(templates.of("/wp-admin/setup.php")).toBe(RouteTemplates.UNMATCHED)
    expect(templates.of("/api/v1/targets/a/b/c/d")).toBe(RouteTemplates.UNMATCHED)
    expect(templates.of("/assets")).toBe(RouteTemplates.UNMATCHED)
  })
})
