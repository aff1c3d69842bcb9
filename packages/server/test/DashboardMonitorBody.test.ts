/**
 * The monitor form's body in the API's shapes (`dashboard/client/monitorBody.ts`, pure): headers and expected
 * statuses written as text, alert bindings, the region policy's number, an edit sending only what changed, and the
 * rule for stored credentials (never sent back as the sentinel, never dropped by a changed check unnoticed).
 */
import { describe, expect, it } from "@effect/vitest"
import {
  type Context,
  parseExpectedStatus,
  parseHeaders,
  shapeBody,
  shapeCheck
} from "../src/dashboard/client/monitorBody.js"

const create: Context = { touched: undefined, secrets: [], cleared: new Set() }

describe("the monitor form's body", () => {
  it("headers: Name: value lines become a map; blank lines are skipped; a bad line or a repeated name is refused", () => {
    expect(parseHeaders("X-Key: {{key}}\n\n  Accept:  text/html \r\nX-Empty:")).toEqual({
      ok: true,
      value: { "X-Key": "{{key}}", Accept: "text/html", "X-Empty": "" }
    })
    expect(parseHeaders("")).toEqual({ ok: true, value: {} })
    expect(parseHeaders("Authorization: Bearer a:b")).toEqual({ ok: true, value: { Authorization: "Bearer a:b" } })
    expect(parseHeaders("no colon here")).toMatchObject({ ok: false, field: "check.headers" })
    expect(parseHeaders(": value")).toMatchObject({ ok: false, field: "check.headers" })
    expect(parseHeaders("A: 1\na: 2")).toMatchObject({ ok: false, message: "The header a is given twice" })
  })

  it("expected status: a code, a list of codes, or the text as written for the API to judge", () => {
    expect(parseExpectedStatus(" 200 ")).toBe(200)
    expect(parseExpectedStatus("200, 204,301")).toEqual([200, 204, 301])
    expect(parseExpectedStatus("2xx")).toBe("2xx")
    expect(parseExpectedStatus("200-399")).toBe("200-399")
    expect(parseExpectedStatus("teapot")).toBe("teapot")
  })

  it("a check: its text fields in the API's shapes, half of basic authentication completed with an empty half", () => {
    expect(
      shapeCheck({ type: "http", url: "u", headers: "A: 1", expected_status: "200", basic_auth: { username: "me" } })
    ).toEqual({
      ok: true,
      value: {
        type: "http",
        url: "u",
        headers: { A: "1" },
        expected_status: 200,
        basic_auth: { username: "me", password: "" }
      }
    })
    expect(shapeCheck({ type: "tcp", host: "h", port: 1 })).toEqual({
      ok: true,
      value: { type: "tcp", host: "h", port: 1 }
    })
  })

  it("a create sends everything, channels as bindings; a count policy needs its number", () => {
    const body = { name: "n", check: { type: "http", url: "u" }, alerts: ["c1", "c2"], region_policy: { count: 2 } }
    expect(shapeBody(body, create)).toEqual({
      ok: true,
      value: { ...body, alerts: [{ channel_id: "c1" }, { channel_id: "c2" }] }
    })
    expect(shapeBody({ ...body, region_policy: "count" }, create)).toMatchObject({
      ok: false,
      field: "region_policy.count"
    })
  })

  it("an edit sends only the sections changed: an untouched check stays out, so its credentials stay as stored", () => {
    const raw = { name: "n", interval: 300, check: { type: "http", url: "u", headers: "X: 2" }, tags: ["a"] }
    const edit: Context = {
      touched: new Set(["interval", "tags"]),
      secrets: [{ name: "check.bearer_token", group: "check.bearer_token", empty: true }],
      cleared: new Set()
    }
    expect(shapeBody(raw, edit)).toEqual({ ok: true, value: { interval: 300, tags: ["a"] } })
    expect(shapeBody(raw, { ...edit, touched: new Set() })).toEqual({ ok: true, value: {} })
  })

  it("a changed check with a stored credential left empty is refused on that field, unless it is removed or entered again", () => {
    const raw = { interval: 300, check: { type: "http", url: "u", headers: "X: 2" } }
    const secrets = [
      { name: "check.basic_auth.username", group: "check.basic_auth", empty: true },
      { name: "check.bearer_token", group: "check.bearer_token", empty: true }
    ]
    const edit: Context = { touched: new Set(["interval", "check"]), secrets, cleared: new Set() }
    expect(shapeBody(raw, edit)).toMatchObject({ ok: false, field: "check.basic_auth.username" })
    expect(shapeBody(raw, { ...edit, cleared: new Set(["check.basic_auth"]) })).toMatchObject({
      ok: false,
      field: "check.bearer_token"
    })
    const entered = secrets.map((secret) => ({ ...secret, empty: false }))
    expect(shapeBody(raw, { ...edit, secrets: entered })).toEqual({
      ok: true,
      value: { interval: 300, check: { type: "http", url: "u", headers: { X: "2" } } }
    })
    expect(shapeBody(raw, { ...edit, cleared: new Set(["check.basic_auth", "check.bearer_token"]) })).toMatchObject({
      ok: true
    })
    // A flow's stored fill value has no remove box: the step is removed, or the value entered again.
    expect(
      shapeBody(
        { check: { type: "flow" } },
        {
          touched: new Set(["check"]),
          secrets: [{ name: "check.steps[2].value", group: "fill", empty: true }],
          cleared: new Set()
        }
      )
    ).toMatchObject({ ok: false, field: "check.steps[2].value" })
  })
})
