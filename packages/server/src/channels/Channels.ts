/**
 * Notification channels: creating one under the account's `max_notification_channels` quota (counted under the
 * account's lock, so concurrent creates settle exactly at the limit), reading, listing, changing and deleting them.
 * A monitor's alert bindings are judged where monitors are written (`targets/Admission.ts`).
 *
 * A channel's config is stored as shown (each secret `***`), with the secret values sealed beside it as one JSON
 * map, so answering never decrypts; a PATCH opens the map only to keep the secrets sent back as `***`. A create or
 * change may stamp `managed_by` (`ManagedClaim`).
 */
import { randomBytes } from "node:crypto"
import * as AddressGuard from "@signalman/checks/AddressGuard"
import * as ApiError from "@signalman/core/ApiError"
import type { ActiveOrg } from "@signalman/core/api/Authentication"
import * as Channel from "@signalman/core/Channel"
import * as DecodeFailure from "@signalman/core/DecodeFailure"
import type * as ManagedBy from "@signalman/core/ManagedBy"
import type * as Plan from "@signalman/core/Plan"
import * as PlanLimits from "@signalman/core/PlanLimits"
import { REDACTED, type WriteSource } from "@signalman/core/Target"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { AppConfig } from "../config/Config.js"
import { Sealer } from "../crypto/Sealer.js"
import { claiming } from "../database/ManagedClaim.js"
import * as ManagedColumns from "../database/ManagedColumns.js"
import type { UniqueViolation } from "../database/UniqueViolation.js"
import { uuidv7 } from "../infra/Ids.js"
import { Plans } from "../limits/Plans.js"
import { QuotaEvents } from "../limits/Quota.js"
import { Deliveries } from "../notify/Deliveries.js"
import { type ChannelRow, ChannelsRepo } from "./Repo.js"

export type { ChannelRow } from "./Repo.js"

const SecretMap = Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.String }))

/** The channel as answered: the row without its sealed secrets, `managed_by` one object. */
export const toChannel = (row: ChannelRow): Channel.Channel => {
  const { secrets: _secrets, managed_by_project: _project, managed_by_key: _key, ...channel } = row
  return new Channel.Channel({ ...channel, managed_by: ManagedColumns.managedBy(row) })
}

export const notFound = ApiError.make("NOT_FOUND", "No such notification channel")

export interface ListQuery {
  readonly limit: number
  readonly offset: number
  readonly kind?: Channel.ChannelKind | undefined
  readonly managed_by?: string | undefined
}

const KIND = "notification channel"

// Channels have no unique index but managed_by's, which `claiming` answers: any other violation is a defect.
const onlyManaged = (violation: UniqueViolation) => Effect.die(violation)

const decodeSettings = Schema.decodeUnknownEither(Channel.Settings, { errors: "all", onExcessProperty: "error" })

/** A webhook signing secret the service makes: 32 random bytes, prefixed so it is recognisable in a vault. */
const signingSecret = () => `whsec_${randomBytes(32).toString("base64url")}`

const failWith = <E>(refusal: Option.Option<E>): Effect.Effect<void, E> =>
  Option.isSome(refusal) ? Effect.fail(refusal.value) : Effect.void

// An SMS channel needs the plan's sms_alerts_enabled; the refusal names the channel's kind.
const smsGate = (plan: Plan.Plan) => PlanLimits.gate(plan, "sms_alerts", "kind")

export class Channels extends Effect.Service<Channels>()("Signalman/Channels", {
  effect: Effect.gen(function* () {
    const repo = yield* ChannelsRepo
    const sealer = yield* Sealer
    const plans = yield* Plans
    const quotaEvents = yield* QuotaEvents
    const deliveries = yield* Deliveries
    const allowPrivate = (yield* AppConfig)["checker.allow_private_targets"]

    const one = (org: ActiveOrg, id: string) =>
      Effect.flatMap(repo.one(org.id, id), (row) => (row === undefined ? Effect.fail(notFound) : Effect.succeed(row)))

    /** A page of the org's channels by name, and how many there are. */
    const list = (org: ActiveOrg, query: ListQuery) =>
      Effect.map(
        repo.list({
          org_id: org.id,
          kind: query.kind,
          managed_by: query.managed_by,
          limit: query.limit,
          offset: query.offset
        }),
        ({ rows, total }) => ({ data: rows.map(toChannel), total })
      )

    /** A config URL naming an internal IP literal is refused like a check's address; names are judged at delivery. */
    const guard = (settings: Channel.Settings) =>
      Effect.gen(function* () {
        if (allowPrivate) return
        for (const { field, url } of Channel.addresses(settings)) {
          const host = new URL(url).hostname
          if (AddressGuard.parseLiteral(host) === undefined) continue
          const verdict = AddressGuard.check(host)
          if (!verdict.allowed) {
            return yield* Effect.fail(
              ApiError.make(
                "TARGET_ADDRESS_BLOCKED",
                `${verdict.address} is ${verdict.reason}: channels may not reach internal addresses`,
                { field }
              )
            )
          }
        }
      })

    const sentinel = (field: string, kept: boolean) =>
      ApiError.make(
        "REDACTION_SENTINEL",
        kept
          ? `*** keeps a stored secret, and this channel has none at ${field}`
          : "*** is the redaction placeholder, not a secret: send the value",
        { field }
      )

    /** The config split for storage, `***` secrets taken from `kept`; a webhook always ends up with a secret. */
    const prepare = (settings: Channel.Settings, kept: Readonly<Record<string, string>>, patching: boolean) =>
      Effect.gen(function* () {
        yield* guard(settings)
        const split = Channel.split(settings, kept)
        if (Either.isLeft(split)) return yield* Effect.fail(sentinel(split.left, patching))
        const { shown, secrets } = split.right
        if (settings.kind !== "webhook" || secrets["secret"] !== undefined) {
          return { shown, secrets, generated: undefined }
        }
        const generated = signingSecret()
        return { shown: { ...shown, secret: REDACTED }, secrets: { ...secrets, secret: generated }, generated }
      })

    const seal = (secrets: Readonly<Record<string, string>>) =>
      Object.keys(secrets).length === 0 ? null : sealer.seal(JSON.stringify(secrets))

    /** A new channel, with the webhook signing secret when the service made one (shown this once). */
    const create = (
      org: ActiveOrg,
      userId: string,
      input: Channel.CreateChannel,
      writeSource: WriteSource,
      managedBy: ManagedBy.ManagedBy | undefined
    ) =>
      Effect.gen(function* () {
        const plan = yield* plans.forAccount(org.accountId)
        if (input.kind === "sms") yield* failWith(smsGate(plan))
        const { shown, secrets, generated } = yield* prepare(input, {}, false)
        const id = uuidv7()
        const outcome = yield* repo.transaction(
          Effect.gen(function* () {
            yield* repo.lockAccount(org.accountId)
            const current = yield* repo.countOfAccount(org.accountId)
            if (!PlanLimits.fits(plan, "max_notification_channels", current)) return { _tag: "Full", current } as const
            const row = yield* claiming(
              KIND,
              managedBy,
              (claim) => repo.holder(org.id, claim),
              repo.insert({
                id,
                org_id: org.id,
                account_id: org.accountId,
                name: input.name,
                kind: input.kind,
                config: shown,
                secrets: seal(secrets),
                enabled: input.enabled ?? true,
                write_source: writeSource,
                ...ManagedColumns.columns(managedBy)
              })
            ).pipe(Effect.catchTag("UniqueViolation", onlyManaged))
            return { _tag: "Created", row } as const
          })
        )
        if (outcome._tag === "Full") {
          return yield* quotaEvents.refuse({
            plan,
            accountId: org.accountId,
            userId,
            quota: "max_notification_channels",
            current: outcome.current
          })
        }
        return { channel: toChannel(outcome.row), signingSecret: generated }
      })

    /** The stored secret values of a row (empty when it has none). */
    const secretsOf = (row: ChannelRow) =>
      row.secrets === null
        ? Effect.succeed<Record<string, string>>({})
        : sealer.open(row.secrets).pipe(Effect.flatMap(Schema.decodeUnknown(SecretMap)), Effect.orDie)

    const update = (
      org: ActiveOrg,
      id: string,
      patch: Channel.PatchChannel,
      writeSource: WriteSource,
      managedBy: ManagedBy.ManagedBy | undefined
    ) =>
      Effect.gen(function* () {
        const plan = yield* plans.forAccount(org.accountId)
        const row = yield* one(org, id)
        // An existing sms channel may be renamed, paused or deleted on a plan without SMS, not armed or re-aimed.
        // A stored SMS channel stays readable and can be disarmed; arming it or changing where it sends is gated.
        if (row.kind === "sms" && (patch.config !== undefined || patch.enabled)) {
          yield* failWith(smsGate(plan))
        }
        let config: { readonly shown: Record<string, unknown>; readonly sealed: string | null } | undefined
        if (patch.config !== undefined) {
          const settings = decodeSettings({ kind: row.kind, config: patch.config })
          if (Either.isLeft(settings)) {
            return yield* Effect.fail(
              DecodeFailure.toApiError(ParseResult.ArrayFormatter.formatErrorSync(settings.left), "body")
            )
          }
          const prepared = yield* prepare(settings.right, yield* secretsOf(row), true)
          config = { shown: prepared.shown, sealed: seal(prepared.secrets) }
        }
        const updated = yield* repo.transaction(
          claiming(
            KIND,
            managedBy,
            (claim) => repo.holder(org.id, claim, row.id),
            repo.update({
              id: row.id,
              org_id: org.id,
              name: patch.name ?? row.name,
              enabled: patch.enabled ?? row.enabled,
              config: config?.shown ?? row.config,
              secrets: config === undefined ? row.secrets : config.sealed,
              write_source: writeSource,
              managed_by: managedBy
            })
          ).pipe(Effect.catchTag("UniqueViolation", onlyManaged))
        )
        return updated === undefined ? yield* Effect.fail(notFound) : toChannel(updated)
      })

    /** Deletes the channel and every binding to it on the org's monitors. */
    const remove = (org: ActiveOrg, id: string) =>
      Effect.flatMap(repo.remove(org.id, id), (removed) => (removed ? Effect.void : Effect.fail(notFound)))

    /** A test send through the channel: the real sender, nothing stored. */
    const test = (org: ActiveOrg, id: string) =>
      Effect.gen(function* () {
        const plan = yield* plans.forAccount(org.accountId)
        const row = yield* one(org, id)
        // A test of an sms channel costs a message like an alert does: only on a plan that includes SMS.
        if (row.kind === "sms") yield* failWith(smsGate(plan))
        return yield* deliveries.sendTest(row)
      })

    /**
     * A monitor's alert bindings: each must name a channel of the org, each at most once (400 VALIDATION_FAILED on
     * `alerts[i].channel_id`). Unknown and foreign ids answer alike, so a binding cannot probe other orgs.
     */
    return {
      list,
      get: (org: ActiveOrg, id: string) => Effect.map(one(org, id), toChannel),
      create,
      update,
      remove,
      test
    }
  }),
  dependencies: [ChannelsRepo.Default, Sealer.Default, Plans.Default, QuotaEvents.Default, Deliveries.Default]
}) {}
