/**
 * One of the caller's monitors as the API reads and runs it: found in the caller's org (another org's is the uniform
 * 404), its history read over a range held within what the plan keeps (`ReadableRange`), its state now, and a run
 * now. The `results` group and the MCP tools both come through here, so the two answer alike.
 */
import { Caller } from "@signalman/core/api/Authentication"
import * as TargetRules from "@signalman/core/TargetRules"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { requireOrg } from "../auth/Policy.js"
import { Plans } from "../limits/Plans.js"
import { notFound, Targets } from "../targets/Targets.js"
import { CheckNow } from "./CheckNow.js"
import * as ReadableRange from "./ReadableRange.js"
import { Readings } from "./Readings.js"

/** The range a read asks for, as the query strings carry it. */
export interface RangeParams {
  readonly from?: DateTime.Utc | undefined
  readonly to?: DateTime.Utc | undefined
  readonly region?: string | undefined
}

const stamp = (range: { readonly from: Date; readonly to: Date }) => ({
  from: DateTime.unsafeFromDate(range.from),
  to: DateTime.unsafeFromDate(range.to)
})

export class CallerMonitors extends Effect.Service<CallerMonitors>()("Signalman/CallerMonitors", {
  effect: Effect.gen(function* () {
    const targets = yield* Targets
    const plans = yield* Plans
    const readings = yield* Readings
    const checkNow = yield* CheckNow

    /** The caller's monitor, or the uniform 404. */
    const owned = (id: string) =>
      Effect.gen(function* () {
        const row = yield* targets.one(yield* requireOrg, id)
        return row === undefined ? yield* Effect.fail(notFound) : row
      })

    /**
     * The caller's monitor and the range asked for, held within what the plan keeps. `rawFrom` is where raw results
     * begin.
     */
    const readable = (id: string, params: RangeParams) =>
      Effect.gen(function* () {
        const org = yield* requireOrg
        const row = yield* owned(id)
        const plan = yield* plans.forAccount(org.accountId)
        const { from, to, rawFrom } = yield* ReadableRange.clamp(plan.quotas, Date.now(), {
          from: params.from === undefined ? undefined : DateTime.toDate(params.from),
          to: params.to === undefined ? undefined : DateTime.toDate(params.to)
        })
        return { row, range: { from, to, region: params.region }, rawFrom }
      })

    return {
      owned,
      readable,
      stamp,
      /** A page of stored results, newest first. */
      results: (id: string, params: RangeParams & { readonly limit: number; readonly offset: number }) =>
        Effect.gen(function* () {
          const { range } = yield* readable(id, params)
          const page = yield* readings.results(id, range, params.limit, params.offset)
          return { data: page.data, total: page.total, limit: params.limit, offset: params.offset }
        }),
      latency: (id: string, params: RangeParams) =>
        Effect.gen(function* () {
          const { range } = yield* readable(id, params)
          const series = yield* readings.latency(id, range)
          return { ...stamp(range), region: range.region ?? null, ...series }
        }),
      uptime: (id: string, params: RangeParams) =>
        Effect.gen(function* () {
          const { range, rawFrom } = yield* readable(id, params)
          const uptime = yield* readings.uptime(id, range, rawFrom)
          return { ...stamp(range), region: range.region ?? null, ...uptime }
        }),
      /** The monitor's state now, judged from the raw results the plan keeps (as the dashboard's detail judges it). */
      state: (id: string) =>
        Effect.gen(function* () {
          const { row, rawFrom } = yield* readable(id, {})
          return { row, state: yield* readings.state(row.id, rawFrom) }
        }),
      /** Runs the monitor now (`CheckNow`); a monitor without a probe is refused for what it is. */
      checkNow: (id: string) =>
        Effect.gen(function* () {
          const caller = yield* Caller
          const row = yield* owned(id)
          const unprobeable = TargetRules.probeable(row.kind)
          if (Option.isSome(unprobeable)) return yield* Effect.fail(unprobeable.value)
          return yield* checkNow.run(row, caller.user.id)
        })
    }
  }),
  dependencies: [Targets.Default, Plans.Default, CheckNow.Default]
}) {}
