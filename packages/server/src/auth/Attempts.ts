/**
 * The authentication attempts log: every sign-in and every credential check that fails writes a row with its
 * method, outcome, reason and fingerprints. The settings page's recent-activity panel reads it.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { uuidv7 } from "../infra/Ids.js"
import { Fingerprint } from "./Fingerprint.js"

export type Method = "magic_link" | "api_token" | "session" | "passkey" | `${string}_oauth`

export type FailureReason =
  | "invalid_token"
  | "token_expired"
  | "token_used"
  | "token_retired"
  | "invalid_code"
  | "signup_closed"
  | "invalid_state"
  | "no_verified_email"
  | "oauth_denied"
  | "missing_code"
  | "oauth_upstream_failed"
  | "account_deleted"

export interface Attempt {
  readonly method: Method
  readonly success: boolean
  readonly failureReason?: FailureReason
  readonly userId?: string | null
  readonly ip?: string
  readonly userAgent?: string
}

export class Attempts extends Effect.Service<Attempts>()("Signalman/Attempts", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const fingerprint = yield* Fingerprint
    return {
      record: (attempt: Attempt) =>
        sql`
          INSERT INTO auth_attempts (id, method, success, failure_reason, user_id, ip_hash, user_agent_hash)
          VALUES (${uuidv7()}, ${attempt.method}, ${attempt.success}, ${attempt.failureReason ?? null},
                  ${attempt.userId ?? null}, ${fingerprint.hash(attempt.ip)}, ${fingerprint.hash(attempt.userAgent)})
        `.pipe(Effect.asVoid, Effect.orDie)
    }
  }),
  dependencies: [Fingerprint.Default]
}) {}
