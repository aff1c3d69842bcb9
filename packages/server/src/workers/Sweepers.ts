/**
 * Sweepers: deletes of rows nothing will read again (auth-and-limits.md, Security model). Each is idempotent, so
 * any number of worker processes may run them; a failed sweep is logged and retried on the next tick.
 *
 * - magic-link rows: dropped seven days after they expire, every 6 hours (when magic links are offered);
 * - passkey ceremonies: once expired, every 5 minutes (always: one left when passkeys were turned off goes too);
 * - invitations: answered, revoked or expired more than 30 days ago, daily;
 * - sessions: ended (expired or revoked) more than 7 days ago, hourly;
 * - rate windows: older than ten minutes, every 10 minutes;
 * - heartbeat pings: older than 14 days, and their outputs older than 7 days, hourly;
 * - accounts whose 30-day deletion grace has passed: purged for good (people, orgs and everything they own, with
 *   everything the data export lists: sessions, tokens, credential events, sign-in attempts), hourly, one account
 *   per transaction, skipped when a restore landed since it was listed;
 * - private status pages: viewer history (visit days, sign-ins) older than a year, password failures older than a
 *   day, ended viewer sessions and sign-in codes a day after they ended, hourly;
 * - probe agents' result receipts (the keys that make a redelivered result count once): after 7 days, hourly;
 * - one-off runs (a test or check-now in an agent's region) an hour past their deadline, every 10 minutes: their
 *   requests delete them when done, so only those of a process that died while waiting are left;
 * - OAuth states past their 10 minutes (a dance begun and never finished), every 10 minutes;
 * - the payment provider's processed event ids (what makes a redelivered webhook count once): after 30 days, daily.
 */
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import { AppConfig } from "../config/Config.js"
import { SweepersRepo } from "./Repo.js"

export interface Sweep {
  readonly name: string
  readonly every: Duration.DurationInput
  /** How many rows the sweep removed. */
  readonly run: Effect.Effect<number, never, SweepersRepo>
}

const sweep = (name: string, every: Duration.DurationInput, run: (repo: SweepersRepo) => Effect.Effect<number>) =>
  ({ name, every, run: Effect.flatMap(SweepersRepo, run) }) satisfies Sweep

// One account per transaction, so a failure leaves the others purged.
const purgeAccounts = (repo: SweepersRepo) =>
  Effect.gen(function* () {
    const due = yield* repo.purgeDue
    for (const accountId of due) yield* repo.purgeAccount(accountId)
    return due.length
  })

export const sweeps = (magicLinks: boolean): ReadonlyArray<Sweep> => [
  ...(magicLinks ? [sweep("magic_links", "6 hours", (repo) => repo.magicLinks)] : []),
  sweep("passkey_ceremonies", "5 minutes", (repo) => repo.passkeyCeremonies),
  sweep("invitations", "1 day", (repo) => repo.invitations),
  sweep("sessions", "1 hour", (repo) => repo.sessions),
  sweep("purge_accounts", "1 hour", purgeAccounts),
  sweep("rate_windows", "10 minutes", (repo) => repo.rateWindows),
  // The record's figures look back 14 days; older pings only take space. Outputs go sooner (after 7 days): the
  // spec keeps them on a shorter clock than the ping.
  sweep("heartbeat_pings", "1 hour", (repo) => repo.heartbeatPings),
  // Viewer history is kept a year (auth-and-limits.md, limits); the rest only serves live sign-ins and the
  // password record's failed_last_24h.
  sweep("page_viewers", "1 hour", (repo) => repo.pageViewers),
  // A replay is answered for 24 hours; after that the key is a new request and its record only takes space.
  sweep("idempotency_keys", "1 hour", (repo) => repo.idempotencyKeys),
  // An agent keeps an undelivered result for as long as it is buffered and resends it on reconnect; a week is far
  // past any redelivery, and the slot it was for is long past any sibling's run.
  sweep("agent_receipts", "1 hour", (repo) => repo.agentReceipts),
  sweep("one_off_runs", "10 minutes", (repo) => repo.oneOffRuns),
  sweep("oauth_states", "10 minutes", (repo) => repo.oauthStates),
  sweep("billing_events", "1 day", (repo) => repo.billingEvents)
]

const runForever = (sweep: Sweep) =>
  sweep.run.pipe(
    Effect.tap((deleted) =>
      deleted > 0 ? Effect.logInfo("Swept").pipe(Effect.annotateLogs({ sweep: sweep.name, deleted })) : Effect.void
    ),
    Effect.catchAllCause((cause) =>
      Effect.logWarning("Sweep failed; retrying on the next tick", cause).pipe(Effect.annotateLogs("sweep", sweep.name))
    ),
    Effect.repeat(Schedule.spaced(sweep.every)),
    Effect.asVoid
  )

/** Runs every sweep in the background for the life of the process. */
export const layer = Layer.scopedDiscard(
  Effect.gen(function* () {
    const config = yield* AppConfig
    for (const sweep of sweeps(config["auth.enabled_methods"].includes("magic_link"))) {
      yield* Effect.forkScoped(runForever(sweep))
    }
  })
).pipe(Layer.provide(SweepersRepo.Default))
