/**
 * The caller's monitors as every read answers them: in the caller's org (another org's is the uniform 404), each
 * with its per-region advisories. The `targets` group and the MCP tools both read through here.
 */
import * as Effect from "effect/Effect"
import { requireOrg } from "../auth/Policy.js"
import * as Advisories from "./Advisories.js"
import { toTarget } from "./Stored.js"
import { type ListQuery, notFound, Targets } from "./Targets.js"

/** A page of the caller's monitors, newest first, filtered as `query` says. */
export const page = (query: ListQuery) =>
  Effect.gen(function* () {
    const targets = yield* Targets
    const found = yield* targets.list(yield* requireOrg, query)
    const data = yield* Advisories.attach(found.rows.map(toTarget))
    return { data, total: found.total, limit: query.limit, offset: query.offset }
  })

/** One of the caller's monitors. */
export const one = (id: string) =>
  Effect.gen(function* () {
    const targets = yield* Targets
    const row = yield* targets.one(yield* requireOrg, id)
    return row === undefined ? yield* Effect.fail(notFound) : yield* Advisories.attachOne(toTarget(row))
  })
