import { describe, expect, it } from "@effect/vitest"
import * as DateTime from "effect/DateTime"
import * as Duration from "effect/Duration"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as Rotation from "../../src/heartbeat/Rotation.js"

const t0 = DateTime.unsafeMake("2026-11-22T10:00:00.000Z")
const at = (seconds: number): DateTime.Utc => DateTime.unsafeMake(DateTime.toEpochMillis(t0) + seconds * 1000)
const day = 86_400

const one = Rotation.minted("old")

describe("Rotation: the spec's table", () => {
  it("one URL | POST rotate with {} | none | new URL live, old URL live for 24 h; response and GET carry previous_url_expires_at and previous_url_last_used_at; pings on the old URL count normally", () => {
    const rotated = Rotation.rotate(one, { token: "new" }, at(0))
    expect(rotated.rotated_at).toEqual(at(0))
    expect(Rotation.resolve(rotated, "new", at(0))).toBe("current")
    expect(Rotation.resolve(rotated, "old", at(0))).toBe("previous")
    expect(Rotation.resolve(rotated, "old", at(day - 1))).toBe("previous")
    expect(Rotation.resolve(rotated, "old", at(day))).toBeUndefined()
    expect(Rotation.overlap(rotated, at(10))).toEqual({
      previous_url_expires_at: at(day),
      previous_url_last_used_at: null
    })

    const used = Rotation.recordUse(rotated, "old", at(600))
    expect(Rotation.overlap(used, at(700))).toEqual({
      previous_url_expires_at: at(day),
      previous_url_last_used_at: at(600)
    })
    // A ping on the current URL is not a use of the old one.
    expect(Rotation.recordUse(used, "new", at(800))).toEqual(used)
    // After the overlap, nothing is reported and a late ping on the old URL stamps nothing.
    expect(Rotation.overlap(used, at(day))).toBeUndefined()
    expect(Rotation.recordUse(used, "old", at(day + 1))).toEqual(used)
  })

  it("overlap | DELETE .../heartbeat/previous | any (idempotent) | old URL ended; 204 either way", () => {
    const ended = Rotation.endPrevious(Rotation.rotate(one, { token: "new" }, at(0)))
    expect(Rotation.resolve(ended, "old", at(1))).toBeUndefined()
    expect(Rotation.resolve(ended, "new", at(1))).toBe("current")
    expect(Rotation.overlap(ended, at(1))).toBeUndefined()
    expect(Rotation.endPrevious(ended)).toEqual(ended)
    expect(Rotation.endPrevious(one)).toEqual(one)
  })

  it("one URL | POST rotate with revoke_previous_immediately true | none | old URL 404s from the same commit; indistinguishable from an unknown token", () => {
    const revoked = Rotation.rotate(one, { token: "new", revoke_previous_immediately: true }, at(0))
    expect(Rotation.resolve(revoked, "old", at(0))).toBeUndefined()
    expect(Rotation.resolve(revoked, "old", at(0))).toBe(Rotation.resolve(revoked, "never-issued", at(0)))
    expect(Rotation.overlap(revoked, at(0))).toBeUndefined()
    expect(revoked.rotated_at).toEqual(at(0))
    // false is an ordinary rotation.
    const kept = Rotation.rotate(one, { token: "new", revoke_previous_immediately: false }, at(0))
    expect(Rotation.resolve(kept, "old", at(0))).toBe("previous")
  })
})

describe("Rotation", () => {
  it("a rotation during an overlap ends the older previous token at once", () => {
    const first = Rotation.rotate(one, { token: "second" }, at(0))
    const second = Rotation.rotate(first, { token: "third" }, at(60))
    expect(Rotation.resolve(second, "old", at(61))).toBeUndefined()
    expect(Rotation.resolve(second, "second", at(61))).toBe("previous")
    expect(Rotation.resolve(second, "third", at(61))).toBe("current")
    expect(second.previous?.expires_at).toEqual(at(60 + day))
  })

  it("the overlap can be set, and an expired previous token is pruned", () => {
    const short = Rotation.rotate(one, { token: "new" }, at(0), Duration.hours(1))
    expect(Rotation.resolve(short, "old", at(3599))).toBe("previous")
    expect(Rotation.prune(short, at(3599))).toEqual(short)
    expect(Rotation.prune(short, at(3600)).previous).toBeNull()
  })

  it("the rotate body takes {} or revoke_previous_immediately, nothing else", () => {
    const decode = Schema.decodeUnknownEither(Rotation.RotateRequest)
    expect(decode({})).toEqual(Either.right({}))
    expect(decode({ revoke_previous_immediately: true })).toEqual(Either.right({ revoke_previous_immediately: true }))
    expect(Either.isLeft(decode({ revoke_previous: true }))).toBe(true)
    expect(Either.isLeft(decode({ revoke_previous_immediately: "yes" }))).toBe(true)
  })
})
