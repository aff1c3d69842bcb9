/**
 * The ping path's write lanes: how many a process runs (the setting, capped by the pool, one on the embedded
 * database) and which lane a monitor falls in (always the same one, spread over all of them).
 */
import { randomUUID } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import * as WriteLanes from "../src/heartbeats/WriteLanes.js"

const url = "postgres://postgres@127.0.0.1:5432/signalman"

describe("WriteLanes", () => {
  it("the setting on PostgreSQL, at most half the pool; one on the embedded database", () => {
    const settings = { "heartbeats.write_lanes": 4, "database.max_connections": 10, "database.url": url }
    expect(WriteLanes.count(settings)).toBe(4)
    expect(WriteLanes.count({ ...settings, "database.max_connections": 5 })).toBe(2)
    expect(WriteLanes.count({ ...settings, "database.max_connections": 1 })).toBe(1)
    expect(WriteLanes.count({ ...settings, "database.url": undefined })).toBe(1)
  })

  it("a monitor always falls in the same lane, and monitors spread over every lane", () => {
    const ids = Array.from({ length: 4_000 }, () => randomUUID())
    const counts = [0, 0, 0, 0]
    for (const id of ids) {
      const lane = WriteLanes.of(id, 4)
      expect(WriteLanes.of(id, 4)).toBe(lane)
      counts[lane] = (counts[lane] ?? 0) + 1
    }
    // An even spread: each lane within a fifth of its share.
    for (const n of counts) expect(Math.abs(n - 1_000)).toBeLessThan(200)
    expect(ids.every((id) => WriteLanes.of(id, 1) === 0)).toBe(true)
  })
})
