import { describe, expect, it } from "@effect/vitest"
import * as FastCheck from "effect/FastCheck"
import * as Option from "effect/Option"
import * as PingSignal from "../../src/heartbeat/PingSignal.js"

const { Fail, Start, Success } = PingSignal.PingSignal

describe("PingSignal", () => {
  it("the bare URL and /success are a clean finish, with or without one trailing slash", () => {
    for (const suffix of ["", "/", "/success", "/success/"]) {
      expect(PingSignal.fromSuffix(suffix)).toEqual(Option.some(Success({ exit_code: null })))
    }
  })

  it("/start begins a run and /fail is a failure without an exit status", () => {
    expect(PingSignal.fromSuffix("/start")).toEqual(Option.some(Start()))
    expect(PingSignal.fromSuffix("/start/")).toEqual(Option.some(Start()))
    expect(PingSignal.fromSuffix("/fail")).toEqual(Option.some(Fail({ exit_code: null })))
  })

  it("/0 is a success and /1 to /255 a failure carrying the code", () => {
    expect(PingSignal.fromSuffix("/0")).toEqual(Option.some(Success({ exit_code: 0 })))
    expect(PingSignal.fromSuffix("/1")).toEqual(Option.some(Fail({ exit_code: 1 })))
    expect(PingSignal.fromSuffix("/255")).toEqual(Option.some(Fail({ exit_code: 255 })))
    expect(PingSignal.fromSuffix("/42/")).toEqual(Option.some(Fail({ exit_code: 42 })))
  })

  it("every exit status 0 to 255 in its one spelling is recognised", () => {
    for (let code = 0; code <= 255; code++) {
      const parsed = Option.getOrThrow(PingSignal.fromSuffix(`/${code}`))
      expect(parsed).toEqual(code === 0 ? Success({ exit_code: 0 }) : Fail({ exit_code: code }))
    }
  })

  it("anything else is unrecognised (the caller answers 404, never a success)", () => {
    for (const suffix of [
      "/256",
      "/1000",
      "/-1",
      "/+1",
      "/007",
      "/00",
      "/01",
      "/1.0",
      "/1e2",
      "/ 1",
      "/0x1",
      "/SUCCESS",
      "/Fail",
      "/succes",
      "/success/extra",
      "/fail/1",
      "/1/2",
      "//",
      "//success",
      "/success//",
      "success",
      "/?x=1",
      "/%73uccess"
    ]) {
      expect(PingSignal.fromSuffix(suffix), suffix).toEqual(Option.none())
    }
  })

  it.prop(
    "no integer outside 0..255 is an exit status",
    [FastCheck.integer().filter((n) => n < 0 || n > 255)],
    ([n]) => {
      expect(PingSignal.fromSuffix(`/${n}`)).toEqual(Option.none())
    }
  )

  it("splits a ping URL's path into its token and signal", () => {
    expect(PingSignal.fromPath("/ping/abc_DEF-123")).toEqual(
      Option.some({ token: "abc_DEF-123", signal: Success({ exit_code: null }) })
    )
    expect(PingSignal.fromPath("/ping/tok/fail")).toEqual(
      Option.some({ token: "tok", signal: Fail({ exit_code: null }) })
    )
    expect(PingSignal.fromPath("/ping/tok/")).toEqual(
      Option.some({ token: "tok", signal: Success({ exit_code: null }) })
    )
    for (const path of ["/ping/", "/ping", "/ping//fail", "/pings/tok", "/ping/tok/nope", "/api/ping/tok"]) {
      expect(PingSignal.fromPath(path), path).toEqual(Option.none())
    }
  })

  it("only /start leaves a run open", () => {
    expect(PingSignal.finishesRun(Start())).toBe(false)
    expect(PingSignal.finishesRun(Success({ exit_code: null }))).toBe(true)
    expect(PingSignal.finishesRun(Fail({ exit_code: 3 }))).toBe(true)
  })
})
