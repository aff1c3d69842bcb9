/**
 * Recent activity on the account page: the person's newest sign-in attempts (the attempts log, auth-and-limits.md
 * "Security model"), each with whether it came from the browser looking at the page. Only keyed hashes of a
 * device are stored, so "this browser" is the best the log can say: the same User-Agent hashed with the same salt.
 */
import { ATTEMPTS_DAYS } from "@signalman/core/api/AccountExport"
import * as Effect from "effect/Effect"
import { Fingerprint } from "../auth/Fingerprint.js"
import { AccountDataRepo } from "./Repo.js"

/** Where an attempt came from, as far as the stored hash tells. */
export type Device = "this_browser" | "other" | "unknown"

export interface ActivityEntry {
  readonly method: string
  readonly success: boolean
  readonly failureReason: string | null
  readonly at: Date
  readonly device: Device
}

export class Activity extends Effect.Service<Activity>()("Signalman/AccountActivity", {
  effect: Effect.gen(function* () {
    const repo = yield* AccountDataRepo
    const fingerprint = yield* Fingerprint
    return {
      /** The person's newest `limit` attempts of the last 90 days; `userAgent` is the asking browser's. */
      recent: (userId: string, userAgent: string | undefined, limit: number) =>
        Effect.map(repo.attempts(userId, ATTEMPTS_DAYS, limit), (rows) => {
          const mine = fingerprint.hash(userAgent)
          return rows.map(
            (row): ActivityEntry => ({
              method: row.method,
              success: row.success,
              failureReason: row.failure_reason,
              at: row.created_at,
              device: row.user_agent_hash === null ? "unknown" : row.user_agent_hash === mine ? "this_browser" : "other"
            })
          )
        })
    }
  }),
  dependencies: [AccountDataRepo.Default, Fingerprint.Default]
}) {}
