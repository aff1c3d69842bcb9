/**
 * The authentication attempts log: every sign-in and every credential check that fails writes a row with its
 * method, outcome, reason and fingerprints. The settings page's recent-activity panel reads it.
 */
import * as Effect from "effect/Effect"
import { uuidv7 } from "../infra/Ids.js"
import { Fingerprint } from "./Fingerprint.js"
import { AuthRepo } from "./Repo.js"

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
  // Passkeys: the ceremony unknown or used (invalid_state) or expired, the credential unknown to every account or
  // made for another host, or the assertion not verifying (signature, origin, challenge, user handle).
  | "state_expired"
  | "unknown_credential"
  | "credential_retired"
  | "invalid_assertion"

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
    const repo = yield* AuthRepo
    const fingerprint = yield* Fingerprint
    return {
      record: (attempt: Attempt) =>
        Effect.suspend(() =>
          repo.insertAttempt({
            id: uuidv7(),
            method: attempt.method,
            success: attempt.success,
            failure_reason: attempt.failureReason ?? null,
            user_id: attempt.userId ?? null,
            ip_hash: fingerprint.hash(attempt.ip),
            user_agent_hash: fingerprint.hash(attempt.userAgent)
          })
        )
    }
  }),
  dependencies: [AuthRepo.Default, Fingerprint.Default]
}) {}
