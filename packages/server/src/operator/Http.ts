/**
 * The operator surface: regions, agents and account plans. The whole surface answers 404 while
 * `operator.admin_token` is unset, so an instance without an operator shows no sign of it.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Argon2 from "@node-rs/argon2"
import * as ApiError from "@signalman/core/ApiError"
import { SignalmanApi } from "@signalman/core/api/Api"
import {
  Agent,
  CreatedAgent,
  OperatorAccount,
  OperatorAuthentication,
  OperatorRegion
} from "@signalman/core/api/Operator"
import * as Plan from "@signalman/core/Plan"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { randomSecret, safeEqual } from "../auth/Secrets.js"
import { AppConfig } from "../Config.js"
import { uuidv7 } from "../Ids.js"
import { Plans } from "../limits/Plans.js"

export const AGENT_PREFIX = "sm_agent_"

export const authenticationLayer = Layer.effect(
  OperatorAuthentication,
  Effect.map(AppConfig, (config) => {
    const secret = config["operator.admin_token"]
    return Effect.gen(function* () {
      if (secret === undefined) return yield* Effect.fail(ApiError.make("NOT_FOUND", "Not found"))
      const request = yield* HttpServerRequest.HttpServerRequest
      const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers["authorization"] ?? "")
      if (match?.[1] === undefined || !safeEqual(match[1], secret)) {
        return yield* Effect.fail(ApiError.make("UNAUTHENTICATED", "The operator token is missing or wrong"))
      }
    })
  })
)

const RegionRow = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  city: Schema.NullOr(Schema.String),
  country_code: Schema.NullOr(Schema.String),
  continent: Schema.NullOr(Schema.Literal("AF", "AN", "AS", "EU", "NA", "OC", "SA")),
  latitude: Schema.NullOr(Schema.Number),
  longitude: Schema.NullOr(Schema.Number),
  enabled: Schema.Boolean,
  flow_capable: Schema.Boolean,
  agents: Schema.Number
})

const AgentRow = Schema.Struct({
  id: Schema.String,
  region_id: Schema.String,
  name: Schema.String,
  prefix: Schema.String,
  created_at: Schema.DateFromSelf,
  last_seen_at: Schema.NullOr(Schema.DateFromSelf)
})

const AccountRow = Schema.Struct({
  id: Schema.String,
  plan_id: Schema.String,
  created_at: Schema.DateFromSelf,
  deleted_at: Schema.NullOr(Schema.DateFromSelf),
  overrides: Schema.NullOr(Plan.Overrides),
  users: Schema.Array(Schema.String),
  orgs: Schema.Array(Schema.NullOr(Schema.String))
})

const toAgent = (row: typeof AgentRow.Type) => ({
  id: row.id,
  region_id: row.region_id,
  name: row.name,
  prefix: row.prefix,
  created_at: DateTime.unsafeFromDate(row.created_at),
  last_seen_at: row.last_seen_at === null ? null : DateTime.unsafeFromDate(row.last_seen_at)
})

export const layer = HttpApiBuilder.group(SignalmanApi, "operator", (handlers) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const plans = yield* Plans
    const decodeRegions = Schema.decodeUnknown(Schema.Array(RegionRow))
    const decodeAgents = Schema.decodeUnknown(Schema.Array(AgentRow))
    const decodeAccounts = Schema.decodeUnknown(Schema.Array(AccountRow))

    const regions = (id?: string) =>
      sql`
        SELECT r.id, r.name, r.city, r.country_code, r.continent, r.latitude, r.longitude, r.enabled, r.flow_capable,
               (SELECT count(*) FROM agents a WHERE a.region_id = r.id AND a.revoked_at IS NULL)::int AS agents
        FROM regions r ${id === undefined ? sql`` : sql`WHERE r.id = ${id}`}
        ORDER BY r.id
      `.pipe(
        Effect.flatMap(decodeRegions),
        Effect.map((rows) => rows.map((row) => new OperatorRegion(row))),
        Effect.orDie
      )

    const region = (id: string) =>
      Effect.flatMap(regions(id), (rows) =>
        rows[0] === undefined ? Effect.fail(ApiError.make("NOT_FOUND", `No region ${id}`)) : Effect.succeed(rows[0])
      )

    const accounts = (where: { readonly email?: string; readonly id?: string }) =>
      sql`
        SELECT a.id, a.plan_id, a.created_at, a.deleted_at, o.limits AS overrides,
               ARRAY(SELECT u.email FROM users u WHERE u.account_id = a.id ORDER BY u.email) AS users,
               ARRAY(SELECT g.slug FROM orgs g WHERE g.account_id = a.id ORDER BY g.slug) AS orgs
        FROM accounts a LEFT JOIN account_overrides o ON o.account_id = a.id
        WHERE ${
          where.id !== undefined
            ? sql`a.id = ${where.id}`
            : sql`a.id IN (SELECT account_id FROM users WHERE email = ${(where.email ?? "").trim().toLowerCase()})`
        }
      `.pipe(
        Effect.flatMap(decodeAccounts),
        Effect.map((rows) =>
          rows.map(
            (row) =>
              new OperatorAccount({
                id: row.id,
                plan_id: row.plan_id,
                created_at: DateTime.unsafeFromDate(row.created_at),
                deleted_at: row.deleted_at === null ? null : DateTime.unsafeFromDate(row.deleted_at),
                overrides: row.overrides ?? {},
                users: row.users,
                orgs: row.orgs.filter((s): s is string => s !== null)
              })
          )
        ),
        Effect.orDie
      )

    const account = (id: string) =>
      Effect.flatMap(accounts({ id }), (rows) =>
        rows[0] === undefined ? Effect.fail(ApiError.make("NOT_FOUND", "No such account")) : Effect.succeed(rows[0])
      )

    return handlers
      .handle("listRegions", () => Effect.map(regions(), (data) => ({ data })))
      .handle("createRegion", ({ payload }) =>
        Effect.gen(function* () {
          const inserted = yield* sql`
            INSERT INTO regions (id, name, city, country_code, continent, latitude, longitude, enabled, flow_capable)
            VALUES (${payload.id}, ${payload.name}, ${payload.city ?? null}, ${payload.country_code ?? null},
                    ${payload.continent ?? null}, ${payload.latitude ?? null}, ${payload.longitude ?? null},
                    ${payload.enabled ?? true}, ${payload.flow_capable ?? false})
            ON CONFLICT (id) DO NOTHING RETURNING id
          `.pipe(Effect.orDie)
          if (inserted.length === 0) {
            return yield* Effect.fail(ApiError.make("SLUG_TAKEN", `A region ${payload.id} exists`, { field: "id" }))
          }
          return yield* region(payload.id)
        })
      )
      .handle("updateRegion", ({ path, payload }) =>
        Effect.gen(function* () {
          const current = yield* region(path.id)
          const next = { ...current, ...payload }
          yield* sql`
            UPDATE regions SET name = ${next.name}, city = ${next.city}, country_code = ${next.country_code},
              continent = ${next.continent}, latitude = ${next.latitude}, longitude = ${next.longitude},
              enabled = ${next.enabled}, flow_capable = ${next.flow_capable}
            WHERE id = ${path.id}
          `.pipe(Effect.orDie)
          return yield* region(path.id)
        })
      )
      .handle("deleteRegion", ({ path }) =>
        Effect.gen(function* () {
          const current = yield* region(path.id)
          if (current.id === "local") {
            return yield* Effect.fail(
              ApiError.make("REGION_IN_USE", "The built-in region local runs in the service itself; disable it instead")
            )
          }
          if (current.agents > 0) {
            return yield* Effect.fail(
              ApiError.make("REGION_IN_USE", `Region ${current.id} still has ${current.agents} agents`, {
                details: { agents: current.agents }
              })
            )
          }
          yield* sql`DELETE FROM agents WHERE region_id = ${path.id}`.pipe(Effect.orDie)
          yield* sql`DELETE FROM regions WHERE id = ${path.id}`.pipe(Effect.orDie)
        })
      )
      .handle("listAgents", () =>
        sql`
          SELECT id, region_id, name, prefix, created_at, last_seen_at FROM agents WHERE revoked_at IS NULL ORDER BY created_at
        `.pipe(
          Effect.flatMap(decodeAgents),
          Effect.map((rows) => ({ data: rows.map((row) => new Agent(toAgent(row))) })),
          Effect.orDie
        )
      )
      .handle("createAgent", ({ payload }) =>
        Effect.gen(function* () {
          yield* region(payload.region_id).pipe(
            Effect.mapError(() =>
              ApiError.make("REGION_INVALID", `No region ${payload.region_id}`, { field: "region_id" })
            )
          )
          const token = `${AGENT_PREFIX}${randomSecret(32)}`
          const hash = yield* Effect.promise(() => Argon2.hash(token))
          const rows = yield* sql`
            INSERT INTO agents (id, region_id, name, prefix, hash)
            VALUES (${uuidv7()}, ${payload.region_id}, ${payload.name}, ${token.slice(0, 17)}, ${hash})
            RETURNING id, region_id, name, prefix, created_at, last_seen_at
          `.pipe(Effect.flatMap(decodeAgents), Effect.orDie)
          const row = rows[0]
          if (row === undefined) return yield* Effect.dieMessage("agent vanished after insert")
          return new CreatedAgent({ ...toAgent(row), token })
        })
      )
      .handle("deleteAgent", ({ path }) =>
        sql<{
          id: string
        }>`UPDATE agents SET revoked_at = now() WHERE id = ${path.id} AND revoked_at IS NULL RETURNING id`.pipe(
          Effect.orDie,
          Effect.flatMap((rows) =>
            rows.length === 0 ? Effect.fail(ApiError.make("NOT_FOUND", "No such agent")) : Effect.void
          )
        )
      )
      .handle("findAccounts", ({ urlParams }) => Effect.map(accounts({ email: urlParams.email }), (data) => ({ data })))
      .handle("setPlan", ({ path, payload }) =>
        Effect.gen(function* () {
          yield* account(path.id)
          yield* sql`UPDATE accounts SET plan_id = ${payload.plan_id} WHERE id = ${path.id}`.pipe(Effect.orDie)
          yield* plans.invalidate(path.id)
          return yield* account(path.id)
        })
      )
      .handle("setOverrides", ({ path, payload }) =>
        Effect.gen(function* () {
          yield* account(path.id)
          yield* sql`
            INSERT INTO account_overrides (account_id, limits, updated_at) VALUES (${path.id}, ${JSON.stringify(payload)}::jsonb, now())
            ON CONFLICT (account_id) DO UPDATE SET limits = EXCLUDED.limits, updated_at = now()
          `.pipe(Effect.orDie)
          yield* plans.invalidate(path.id)
          return yield* account(path.id)
        })
      )
  })
)
