import { describe, expect, it } from "@effect/vitest"
import * as DateTime from "effect/DateTime"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as MonitorShare from "../src/MonitorShare.js"

const now = DateTime.unsafeMake("2026-05-01T12:00:00.000Z")
const decode = Schema.decodeUnknownSync(MonitorShare.CreateMonitorShare)
const refusal = (either: Either.Either<unknown, { code: string; field: string | null; status: number }>) =>
  Either.isLeft(either) ? { status: either.left.status, code: either.left.code, field: either.left.field } : undefined

describe("MonitorShare.validateCreate", () => {
  it("no label and no expiry is a link that never lapses", () => {
    expect(MonitorShare.validateCreate(decode({}), now)).toEqual(Either.right({ label: null, expires_at: null }))
    expect(MonitorShare.validateCreate(decode({ label: null, expires_at: null }), now)).toEqual(
      Either.right({ label: null, expires_at: null })
    )
  })

  it("a label is trimmed, a blank one is none, 80 characters (code points) pass", () => {
    const ok = (label: string) => MonitorShare.validateCreate(decode({ label }), now)
    expect(ok("  for the client  ")).toEqual(Either.right({ label: "for the client", expires_at: null }))
    expect(ok("   ")).toEqual(Either.right({ label: null, expires_at: null }))
    expect(Either.isRight(ok("x".repeat(80)))).toBe(true)
    expect(Either.isRight(ok("🚦".repeat(80)))).toBe(true)
  })

  it("a label over 80 characters is 400 SHARE_LABEL_INVALID on label", () => {
    expect(refusal(MonitorShare.validateCreate(decode({ label: "x".repeat(81) }), now))).toEqual({
      status: 400,
      code: "SHARE_LABEL_INVALID",
      field: "label"
    })
    expect(refusal(MonitorShare.validateCreate(decode({ label: "🚦".repeat(81) }), now))).toEqual({
      status: 400,
      code: "SHARE_LABEL_INVALID",
      field: "label"
    })
  })

  it("an expiry at or before now is 400 INVALID_EXPIRY on expires_at; a later one is kept", () => {
    for (const at of ["2026-05-01T12:00:00.000Z", "2026-05-01T11:59:59Z", "2020-01-01T00:00:00+02:00"]) {
      expect(refusal(MonitorShare.validateCreate(decode({ expires_at: at }), now))).toEqual({
        status: 400,
        code: "INVALID_EXPIRY",
        field: "expires_at"
      })
    }
    const later = MonitorShare.validateCreate(decode({ expires_at: "2026-05-01T12:00:01Z" }), now)
    expect(Either.isRight(later) && later.right.expires_at?.epochMillis).toBe(Date.parse("2026-05-01T12:00:01Z"))
  })

  it("the body refuses unknown keys and an expiry that is not an RFC 3339 instant", () => {
    expect(() => decode({ label: "a", token: "x" })).toThrow(/is unexpected/)
    expect(() => decode({ expires_at: "2026-05-01" })).toThrow(/RFC 3339/)
    expect(() => decode({ label: 5 })).toThrow()
  })
})

describe("MonitorShare.isLive", () => {
  const later = DateTime.add(now, { hours: 1 })
  it("live until revoked, and until its expiry instant (exclusive)", () => {
    expect(MonitorShare.isLive({ revoked_at: null, expires_at: null }, now)).toBe(true)
    expect(MonitorShare.isLive({ revoked_at: null, expires_at: later }, now)).toBe(true)
    expect(MonitorShare.isLive({ revoked_at: null, expires_at: now }, now)).toBe(false)
    expect(MonitorShare.isLive({ revoked_at: now, expires_at: later }, now)).toBe(false)
  })
})

describe("MonitorShare.looksLikeToken", () => {
  it("takes the prefix and 43 base64url characters only", () => {
    expect(MonitorShare.looksLikeToken(`sm_share_${"A".repeat(43)}`)).toBe(true)
    expect(MonitorShare.looksLikeToken(`sm_share_${"A".repeat(42)}`)).toBe(false)
    expect(MonitorShare.looksLikeToken(`sm_live_${"A".repeat(43)}`)).toBe(false)
    expect(MonitorShare.looksLikeToken(`sm_share_${"A".repeat(42)}/`)).toBe(false)
  })
})

describe("MonitorShare.quotaBreach", () => {
  const limits = { max_share_links_per_monitor: 3, max_shared_monitors: 2 }
  it("names max_share_links_per_monitor when the monitor holds its limit of live links", () => {
    expect(MonitorShare.quotaBreach({ linksOnMonitor: 3, sharedMonitors: 1 }, limits)).toEqual({
      quota: "max_share_links_per_monitor",
      current: 3,
      limit: 3
    })
  })
  it("names max_shared_monitors only for a monitor not yet shared", () => {
    expect(MonitorShare.quotaBreach({ linksOnMonitor: 0, sharedMonitors: 2 }, limits)).toEqual({
      quota: "max_shared_monitors",
      current: 2,
      limit: 2
    })
    expect(MonitorShare.quotaBreach({ linksOnMonitor: 1, sharedMonitors: 2 }, limits)).toBeUndefined()
    expect(MonitorShare.quotaBreach({ linksOnMonitor: 0, sharedMonitors: 1 }, limits)).toBeUndefined()
  })
})
