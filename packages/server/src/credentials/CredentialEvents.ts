/**
 * Credential changes (auth-and-limits.md, "Credential changes"): every sign-in method added to an account or
 * removed from it writes a row (with the device as keyed hashes), mails the account (not inside the deletion grace
 * window: the change is recorded, the mail is not sent) and counts in `signalman_credential_changes_total`. Removing
 * one also signs out every other session of the account, keeping the one that asked.
 *
 * Called by the sign-in methods that are credentials of their own (the providers and passkeys) after their own
 * write has committed: the event records what happened, it is not part of deciding it.
 */
import type { CredentialChangeKind, CredentialMethod, CredentialOrigin } from "@signalman/core/CredentialEvent"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import { Fingerprint } from "../auth/Fingerprint.js"
import { type Device, Sessions } from "../auth/Sessions.js"
import { publicBaseUrl } from "../config/Config.js"
import { uuidv7 } from "../infra/Ids.js"
import { Mailer } from "../infra/Mailer.js"
import * as Series from "../metrics/Series.js"
import { compose } from "./CredentialMail.js"
import { CredentialEventRow, CredentialEventsRepo } from "./Repo.js"

export type { CredentialMethod, CredentialOrigin }
export { CredentialEventRow }

export interface CredentialChange {
  readonly userId: string
  readonly method: CredentialMethod
  readonly origin: CredentialOrigin
  /** What the account page and the mail call it: the provider's account name/email, or the passkey's name. */
  readonly label: string
  readonly device: Device
}

/** Changes by method and direction; a run of removals nobody asked for shows here first. */
export const changesTotal = Series.counter(
  "signalman_credential_changes_total",
  "Sign-in methods (providers and passkeys) added to or removed from accounts"
)

export class CredentialEvents extends Effect.Service<CredentialEvents>()("Signalman/CredentialEvents", {
  effect: Effect.gen(function* () {
    const repo = yield* CredentialEventsRepo
    const fingerprint = yield* Fingerprint
    const sessions = yield* Sessions
    const mailer = yield* Mailer
    const base = yield* publicBaseUrl

    const record = (change: CredentialChange, kind: CredentialChangeKind) =>
      Effect.gen(function* () {
        const at = new Date()
        yield* repo.insert({
          id: uuidv7(),
          user_id: change.userId,
          change: kind,
          method: change.method,
          origin: change.origin,
          label: change.label,
          created_at: at,
          ip_hash: fingerprint.hash(change.device.ip),
          user_agent_hash: fingerprint.hash(change.device.userAgent)
        })
        yield* Metric.increment(Metric.tagged(Metric.tagged(changesTotal, "method", change.method), "change", kind))
        const recipient = yield* repo.recipient(change.userId)
        // Inside the deletion grace window the change is on record and nobody is mailed: the account is on its way
        // out, and its owner sees the change on the restore page if they come back.
        if (recipient === undefined || recipient.deleted_at !== null) return
        yield* mailer
          .send(
            compose({
              to: recipient.email,
              change: kind,
              method: change.method,
              origin: change.origin,
              label: change.label,
              at,
              userAgent: change.device.userAgent,
              base
            })
          )
          // The change stands without its mail; a mail server down is an operator's problem, logged.
          .pipe(Effect.catchAll((error) => Effect.logError("Could not send the credential-change mail", error.cause)))
      })

    return {
      /** A provider linked or a passkey added: the row, the account mail and the counter. */
      added: (change: CredentialChange): Effect.Effect<void> => record(change, "added"),
      /** A provider or passkey removed: as `added`, and every other session of the account signed out. */
      removed: (change: CredentialChange & { readonly keepSessionId: string }): Effect.Effect<void> =>
        Effect.zipRight(sessions.revokeAll(change.userId, change.keepSessionId), record(change, "removed")),
      /** The person's changes, newest first: for the account page and the data export. */
      ofUser: (userId: string): Effect.Effect<ReadonlyArray<CredentialEventRow>> => repo.ofUser(userId)
    }
  }),
  dependencies: [CredentialEventsRepo.Default, Fingerprint.Default, Sessions.Default]
}) {}
