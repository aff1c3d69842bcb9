import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { RateBudgets } from "../src/limits/RateBudgets.js"
import { awayFromMinuteEdge } from "./support/Eventually.js"
import * as TestServer from "./support/TestServer.js"

describe("RateBudgets", () => {
  it.scopedLive(
    "concurrent requests in one process share reservations: exactly the limit is admitted",
    () =>
      Effect.gen(function* () {
        const server = yield* TestServer.start({ DATA_DIR: "memory://", ROLE: "api" })
        const rates = yield* RateBudgets.pipe(
          Effect.provide(RateBudgets.Default),
          Effect.provideService(SqlClient.SqlClient, server.sql)
        )
        // The budget counts per wall-clock minute: all 150 spends (a second or two) must fall in one window.
        yield* awayFromMinuteEdge(5)
        const verdicts = yield* Effect.forEach(
          Array.from({ length: 150 }, () => 0),
          () => rates.spend("account:test", "api_reads", 100),
          { concurrency: "unbounded" }
        )
        expect(verdicts.filter((v) => v.allowed)).toHaveLength(100)
        const refused = verdicts.find((v) => !v.allowed)
        expect(refused !== undefined && !refused.allowed && refused.retryAfterSecs).toBeGreaterThanOrEqual(1)
      }),
    // A server start on a loaded machine plus up to 5 s waiting for a fresh minute.
    60_000
  )

  it.scopedLive("a huge limit neither overflows the counter nor refuses concurrent requests", () =>
    Effect.gen(function* () {
      const server = yield* TestServer.start({ DATA_DIR: "memory://", ROLE: "api" })
      const rates = yield* RateBudgets.pipe(
        Effect.provide(RateBudgets.Default),
        Effect.provideService(SqlClient.SqlClient, server.sql)
      )
      const verdicts = yield* Effect.forEach(
        Array.from({ length: 200 }, () => 0),
        () => rates.spend("account:big", "api_reads", 1_000_000_000),
        { concurrency: "unbounded" }
      )
      expect(verdicts.every((v) => v.allowed)).toBe(true)
    })
  )

  it.scopedLive("spendReserved takes one request from every subject's reserved block, or none when any has none", () =>
    Effect.gen(function* () {
      const server = yield* TestServer.start({ DATA_DIR: "memory://", ROLE: "api" })
      const rates = yield* RateBudgets.pipe(
        Effect.provide(RateBudgets.Default),
        Effect.provideService(SqlClient.SqlClient, server.sql)
      )
      yield* awayFromMinuteEdge(5)
      // Nothing reserved yet: the memory path declines and spends nothing.
      expect(rates.spendReserved(["account:a", "user:a"], "api_reads")).toBe(false)
      // A limit of 40 reserves blocks of 2: one spent by `spend`, one left in each block.
      yield* rates.spend("account:a", "api_reads", 40)
      expect(rates.spendReserved(["account:a", "user:a"], "api_reads")).toBe(false)
      yield* rates.spend("user:a", "api_reads", 40)
      expect(rates.spendReserved(["account:a", "user:a"], "api_reads")).toBe(true)
      // Both blocks are empty now; declining took nothing from either, so the limit still holds exactly.
      expect(rates.spendReserved(["account:a", "user:a"], "api_reads")).toBe(false)
      const rest = yield* Effect.forEach(
        Array.from({ length: 50 }, () => 0),
        () => rates.spend("account:a", "api_reads", 40)
      )
      expect(rest.filter((v) => v.allowed)).toHaveLength(38)
    })
  )
})
