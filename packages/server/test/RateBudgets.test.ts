import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { RateBudgets } from "../src/limits/RateBudgets.js"
import { LimitsRepo } from "../src/limits/Repo.js"
import { awayFromMinuteEdge } from "./support/Eventually.js"

// The service on an in-memory counter: the per-minute rules without a database (the counter's sharing across
// processes is tested on PostgreSQL in e2e-postgres/SharedLimits.test.ts).
const budgets = Effect.provide(
  RateBudgets,
  RateBudgets.DefaultWithoutDependencies.pipe(Layer.provide(LimitsRepo.Test()))
)

const times = (n: number) => Array.from({ length: n }, () => 0)

describe("RateBudgets", () => {
  it.live("concurrent requests in one process share reservations: exactly the limit is admitted", () =>
    Effect.gen(function* () {
      const rates = yield* budgets
      // The budget counts per wall-clock minute: all 150 spends must fall in one window.
      yield* awayFromMinuteEdge(5)
      const verdicts = yield* Effect.forEach(times(150), () => rates.spend("account:test", "api_reads", 100), {
        concurrency: "unbounded"
      })
      expect(verdicts.filter((v) => v.allowed)).toHaveLength(100)
      const refused = verdicts.find((v) => !v.allowed)
      expect(refused !== undefined && !refused.allowed && refused.retryAfterSecs).toBeGreaterThanOrEqual(1)
    })
  )

  it.live("a huge limit neither overflows the counter nor refuses concurrent requests", () =>
    Effect.gen(function* () {
      const rates = yield* budgets
      const verdicts = yield* Effect.forEach(times(200), () => rates.spend("account:big", "api_reads", 1_000_000_000), {
        concurrency: "unbounded"
      })
      expect(verdicts.every((v) => v.allowed)).toBe(true)
    })
  )

  it.live("subjects and categories have budgets of their own", () =>
    Effect.gen(function* () {
      const rates = yield* budgets
      yield* awayFromMinuteEdge(5)
      const spendAll = (subject: string, category: string) =>
        Effect.forEach(times(6), () => rates.spend(subject, category, 5))
      const reads = yield* spendAll("account:a", "api_reads")
      const writes = yield* spendAll("account:a", "api_writes")
      const other = yield* spendAll("account:b", "api_reads")
      for (const verdicts of [reads, writes, other]) {
        expect(verdicts.map((v) => v.allowed)).toEqual([true, true, true, true, true, false])
      }
    })
  )

  it.live("an admitted request says what remains of the window", () =>
    Effect.gen(function* () {
      const rates = yield* budgets
      yield* awayFromMinuteEdge(5)
      const [first, second] = yield* Effect.forEach(times(2), () => rates.spend("user:r", "api_reads", 100))
      expect(first).toMatchObject({ allowed: true, limit: 100, remaining: 99 })
      expect(second).toMatchObject({ allowed: true, limit: 100, remaining: 98 })
    })
  )

  it.live("spendReserved takes one request from every subject's reserved block, or none when any has none", () =>
    Effect.gen(function* () {
      const rates = yield* budgets
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
      const rest = yield* Effect.forEach(times(50), () => rates.spend("account:a", "api_reads", 40))
      expect(rest.filter((v) => v.allowed)).toHaveLength(38)
    })
  )
})
