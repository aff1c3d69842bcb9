/**
 * Notification channels: creating one under the account's `max_notification_channels` quota (counted under the
 * account's lock, so concurrent creates settle exactly at the limit), reading, listing, changing and deleting them,
 * and judging a monitor's alert bindings against them.
 *
 * A channel's config is stored as shown (each secret `***`), with the secret values sealed beside it as one JSON
 * map, so answering never decrypts; a PATCH opens the map only to keep the secrets sent back as `***`.
 */
import { randomBytes } from "node:crypto"
import * as SqlClient from "@effect/sql/SqlClient"
import * as AddressGuard from "@signalman/checks/AddressGuard"
import * as ApiError from "@signalman/core/ApiError"
import type { ActiveOrg } from "@signalman/core/api/Authentication"
import * as Channel from "@signalman/core/Channel"
import * as DecodeFailure from "@signalman/core/DecodeFailure"
import type * as Plan from "@signalman/core/Plan"
import { REDACTED, WriteSource } from "@signalman/core/Target"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { AppConfig } from "../Config.js"
import { Sealer } from "../crypto/Sealer.js"
import { uuidv7 } from "../Ids.js"
import { QuotaEvents } from "../limits/Quota.js"
import * as References from "../targets/References.js"

const ChannelRow = Schema.Struct({
  id: Channel.ChannelId,
  name: Schema.String,
  kind: Channel.ChannelKind,
  config: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  secrets: Schema.NullOr(Schema.String),
  enabled: Schema.Boolean,
  write_source: WriteSource,
  created_at: Schema.DateFromSelf,
  updated_at: Schema.DateFromSelf
})
export type ChannelRow = typeof ChannelRow.Type

const SecretMap = Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.String }))

export const toChannel = (row: ChannelRow): Channel.Channel =>
  new Channel.Channel({
    id: row.id,
    name: row.name,
    kind: row.kind,
    config: row.config,
    enabled: row.enabled,
    write_source: row.write_source,
    created_at: DateTime.unsafeFromDate(row.created_at),
    updated_at: DateTime.unsafeFromDate(row.updated_at)
  })

export const notFound = ApiError.make("NOT_FOUND", "No such notification channel")

export interface ListQuery {
  readonly limit: number
  readonly offset: number
  readonly kind?: Channel.ChannelKind | undefined
}

const decodeSettings = Schema.decodeUnknownEither(Channel.Settings, { errors: "all", onExcessProperty: "error" })

/** A webhook signing secret the service makes: 32 random bytes, prefixed so it is recognisable in a vault. */
const signingSecret = () => `whsec_${randomBytes(32).toString("base64url")}`

const smsDisabled = (plan: Plan.Plan) =>
  ApiError.make("SMS_ALERTS_DISABLED", "SMS alerts are not part of this plan", {
    field: "kind",
    details: { flag: "sms_alerts_enabled", plan: plan.id }
  })

export class Channels extends Effect.Service<Channels>()("Signalman/Channels", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const sealer = yield* Sealer
    const quotaEvents = yield* QuotaEvents
    const allowPrivate = (yield* AppConfig)["checker.allow_private_targets"]
    const decode = Schema.decodeUnknown(Schema.Array(ChannelRow))

    const one = (org: ActiveOrg, id: string) =>
      sql`SELECT * FROM channels WHERE id = ${id} AND org_id = ${org.id}`.pipe(
        Effect.flatMap(decode),
        Effect.map((rows) => rows[0]),
        Effect.orDie
      )

    const list = (org: ActiveOrg, query: ListQuery) =>
      Effect.gen(function* () {
        const where = sql.and([
          sql`org_id = ${org.id}`,
          ...(query.kind === undefined ? [] : [sql`kind = ${query.kind}`])
        ])
        const [count] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM channels WHERE ${where}`
        const rows = yield* sql`
          SELECT * FROM channels WHERE ${where} ORDER BY lower(name), id LIMIT ${query.limit} OFFSET ${query.offset}
        `.pipe(Effect.flatMap(decode))
        return { rows, total: count?.n ?? 0 }
      }).pipe(Effect.orDie)

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

    const create = (
      org: ActiveOrg,
      userId: string,
      plan: Plan.Plan,
      input: Channel.CreateChannel,
      writeSource: WriteSource
    ) =>
      Effect.gen(function* () {
        if (input.kind === "sms" && !plan.flags.sms_alerts_enabled) return yield* Effect.fail(smsDisabled(plan))
        const { shown, secrets, generated } = yield* prepare(input, {}, false)
        const id = uuidv7()
        const outcome = yield* sql
          .withTransaction(
            Effect.gen(function* () {
              yield* sql`SELECT pg_advisory_xact_lock(hashtext(${`account:${org.accountId}`}))`
              const [count] = yield* sql<{ n: number }>`
                SELECT count(*)::int AS n FROM channels c JOIN orgs o ON o.id = c.org_id
                WHERE c.account_id = ${org.accountId} AND o.deleted_at IS NULL
              `
              const current = count?.n ?? 0
              if (current >= plan.quotas.max_notification_channels) return { _tag: "Full", current } as const
              const rows = yield* sql`
                INSERT INTO channels (id, org_id, account_id, name, kind, config, secrets, enabled, write_source)
                VALUES (${id}, ${org.id}, ${org.accountId}, ${input.name}, ${input.kind}, ${JSON.stringify(shown)}::jsonb,
                  ${seal(secrets)}, ${input.enabled ?? true}, ${writeSource})
                RETURNING *
              `.pipe(Effect.flatMap(decode))
              const row = rows[0]
              if (row === undefined) return yield* Effect.dieMessage("channel vanished after insert")
              return { _tag: "Created", row } as const
            })
          )
          .pipe(Effect.orDie)
        if (outcome._tag === "Full") {
          return yield* quotaEvents.refuse({
            plan,
            accountId: org.accountId,
            userId,
            quota: "max_notification_channels",
            current: outcome.current
          })
        }
        return { row: outcome.row, signingSecret: generated }
      })

    /** The stored secret values of a row (empty when it has none). */
    const secretsOf = (row: ChannelRow) =>
      row.secrets === null
        ? Effect.succeed<Record<string, string>>({})
        : sealer.open(row.secrets).pipe(Effect.flatMap(Schema.decodeUnknown(SecretMap)), Effect.orDie)

    const update = (
      org: ActiveOrg,
      plan: Plan.Plan,
      id: string,
      patch: Channel.PatchChannel,
      writeSource: WriteSource
    ) =>
      Effect.gen(function* () {
        const row = yield* one(org, id)
        if (row === undefined) return undefined
        // An existing sms channel may be renamed, paused or deleted on a plan without SMS, not armed or re-aimed.
        if (row.kind === "sms" && !plan.flags.sms_alerts_enabled && (patch.config !== undefined || patch.enabled)) {
          return yield* Effect.fail(smsDisabled(plan))
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
        const rows = yield* sql`
          UPDATE channels SET
            name = ${patch.name ?? row.name},
            enabled = ${patch.enabled ?? row.enabled},
            config = ${JSON.stringify(config?.shown ?? row.config)}::jsonb,
            secrets = ${config === undefined ? row.secrets : config.sealed},
            write_source = ${writeSource},
            updated_at = now()
          WHERE id = ${row.id} AND org_id = ${org.id}
          RETURNING *
        `.pipe(Effect.flatMap(decode), Effect.orDie)
        return rows[0]
      })

    /**
     * Deletes the channel and, in the same transaction, every binding to it on the org's monitors (their other
     * bindings keep their order), so no monitor is left pointing at nothing.
     */
    const remove = (org: ActiveOrg, id: string) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            // Under the org's reference lock, so no monitor saved meanwhile can bind the channel being deleted.
            yield* References.lock(org.id)
            const deleted = yield* sql<{ id: string }>`
              DELETE FROM channels WHERE id = ${id} AND org_id = ${org.id} RETURNING id::text AS id
            `
            const gone = deleted[0]?.id
            if (gone === undefined) return false
            yield* sql`
              UPDATE targets t SET
                alerts = (
                  SELECT coalesce(jsonb_agg(e.binding ORDER BY e.n), '[]'::jsonb)
                  FROM jsonb_array_elements(t.alerts) WITH ORDINALITY AS e(binding, n)
                  WHERE lower(e.binding->>'channel_id') <> ${gone}
                ),
                updated_at = now()
              WHERE t.org_id = ${org.id}
                AND EXISTS (
                  SELECT 1 FROM jsonb_array_elements(t.alerts) AS b(binding) WHERE lower(b.binding->>'channel_id') = ${gone}
                )
            `
            return true
          })
        )
        .pipe(Effect.orDie)

    /**
     * A monitor's alert bindings: each must name a channel of the org, each at most once (400 VALIDATION_FAILED on
     * `alerts[i].channel_id`). Unknown and foreign ids answer alike, so a binding cannot probe other orgs.
     */
    const checkBindings = (org: ActiveOrg, alerts: ReadonlyArray<{ readonly channel_id: string }>) =>
      Effect.gen(function* () {
        if (alerts.length === 0) return
        const ids = alerts.map((binding) => binding.channel_id.toLowerCase())
        const twice = ids.findIndex((channelId, i) => ids.indexOf(channelId) !== i)
        if (twice !== -1) {
          return yield* Effect.fail(
            ApiError.make("VALIDATION_FAILED", `alerts[${ids.indexOf(ids[twice] ?? "")}] binds this channel already`, {
              field: `alerts[${twice}].channel_id`
            })
          )
        }
        const known = yield* sql<{ id: string }>`
          SELECT id::text AS id FROM channels WHERE org_id = ${org.id} AND id IN ${sql.in(ids)}
        `.pipe(Effect.orDie)
        const found = new Set(known.map((row) => row.id))
        const unknown = ids.findIndex((channelId) => !found.has(channelId))
        if (unknown !== -1) {
          return yield* Effect.fail(
            ApiError.make("VALIDATION_FAILED", "No such notification channel in this org", {
              field: `alerts[${unknown}].channel_id`
            })
          )
        }
      })

    return { one, list, create, update, remove, checkBindings, smsDisabled }
  }),
  dependencies: [Sealer.Default, QuotaEvents.Default]
}) {}
