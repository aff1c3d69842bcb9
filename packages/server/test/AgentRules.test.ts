/**
 * The agent side's small rules: a job's `due` read back as the server wrote it, the times that make a result absurd,
 * and the server version agents are told.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import type { Outcome } from "@signalman/core/api/Agent"
import * as DateTime from "effect/DateTime"
import * as Schema from "effect/Schema"
import { SERVER_VERSION } from "../src/agents/Agents.js"
import { absurdity, dueMillis, MAX_SKEW_MS } from "../src/agents/Ingest.js"

const outcome = (at: number, duration = 10): Outcome => ({
  checked_at: DateTime.unsafeMake(at),
  status: "up",
  duration_ms: duration,
  error: null,
  details: null,
  phases: null,
  evidence: null
})

describe("agent results", () => {
  it("a due is read as PostgreSQL writes a timestamptz, to the millisecond, whatever the offset", () => {
    expect(dueMillis("2026-03-01 10:00:00+00")).toBe(Date.UTC(2026, 2, 1, 10))
    expect(dueMillis("2026-03-01 10:00:00.123456+00")).toBe(Date.UTC(2026, 2, 1, 10, 0, 0, 123))
    expect(dueMillis("2026-03-01 11:30:00.5+01:30")).toBe(Date.UTC(2026, 2, 1, 10, 0, 0, 500))
    expect(dueMillis("2026-03-01 05:00:00-05")).toBe(Date.UTC(2026, 2, 1, 10))
  })

  it("a due the server never wrote is not read: no SQL ever sees it", () => {
    for (const due of ["", "now", "2026-03-01T10:00:00Z", "2026-03-01 10:00:00", "2026-13-01 10:00:00+00", "1 day"]) {
      expect(dueMillis(due), due).toBeUndefined()
    }
  })

  it(`a result more than ${MAX_SKEW_MS / 60_000} minutes ahead of the server, or before its slot, is absurd`, () => {
    const now = Date.UTC(2026, 2, 1, 12)
    const due = now - 60_000
    expect(absurdity(outcome(now), due, now)).toBeUndefined()
    expect(absurdity(outcome(now + MAX_SKEW_MS - 1), due, now)).toBeUndefined()
    expect(absurdity(outcome(now + MAX_SKEW_MS + 1), due, now)).toBe("checked_at is in the future")
    expect(absurdity(outcome(due - MAX_SKEW_MS + 1), due, now)).toBeUndefined()
    expect(absurdity(outcome(due - MAX_SKEW_MS - 1), due, now)).toBe("checked_at is before the slot was due")
    // Delivered long after it ran (a buffered result after an outage) is fine.
    expect(absurdity(outcome(due + 1000), due, now + 6 * 3_600_000)).toBeUndefined()
    expect(absurdity(outcome(now, -1), due, now)).toBe("duration_ms is negative")
  })

  it("agents are told the server package's version", () => {
    const file = path.resolve(__dirname, "../package.json")
    const { version } = Schema.decodeUnknownSync(Schema.parseJson(Schema.Struct({ version: Schema.String })))(
      fs.readFileSync(file, "utf8")
    )
    expect(SERVER_VERSION).toBe(version)
  })
})
