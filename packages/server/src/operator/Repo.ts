/**
 * The operator surface's SQL: regions with their live agent counts and computed browser capability
 * (`region_flow_capable`, migration 0018), agents with what they last reported, and accounts with their users, orgs
 * and overrides. Rows are decoded with core's schemas (timestamps arrive as `Date`s, hence the `FromDate` fields).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Agent, OperatorAccount, OperatorRegion, RegionId } from "@signalman/core/api/Operator"
import { AccountId } from "@signalman/core/Identity"
import * as Plan from "@signalman/core/Plan"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

const AgentRow = Schema.Struct({
  ...Agent.fields,
  created_at: Schema.DateTimeUtcFromDate,
  last_seen_at: Schema.NullOr(Schema.DateTimeUtcFromDate)
})

const AccountRow = Schema.Struct({
  ...OperatorAccount.fields,
  created_at: Schema.DateTimeUtcFromDate,
  deleted_at: Schema.NullOr(Schema.DateTimeUtcFromDate),
  overrides: Schema.NullOr(Plan.Overrides),
  // An account's orgs may all be gone (soft-deleted rows keep no slug).
  orgs: Schema.Array(Schema.NullOr(Schema.String))
})

const toAccount = (row: typeof AccountRow.Type) =>
  new OperatorAccount({
    ...row,
    overrides: row.overrides ?? {},
    orgs: row.orgs.filter((slug): slug is string => slug !== null)
  })

/** A region as stored: everything an operator sees but what is computed (the agent count, the browser capability). */
export const StoredRegion = Schema.typeSchema(OperatorRegion).pipe(Schema.omit("agents", "flow_capable"))
export type StoredRegion = typeof StoredRegion.Type

/** A new agent's row: the token itself is never stored, only its prefix and argon2id hash. */
export const NewAgent = Schema.Struct({
  id: Schema.UUID,
  region_id: RegionId,
  name: Schema.String,
  prefix: Schema.String,
  hash: Schema.String
})

/** Who to find accounts by: an exact id, or any of their users' addresses. */
export type AccountLookup =
  | { readonly _tag: "Id"; readonly id: AccountId }
  | { readonly _tag: "Email"; readonly email: string }

export class OperatorRepo extends Effect.Service<OperatorRepo>()("Signalman/OperatorRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    // What an operator sees of an agent; connected while a process serving one of its streams keeps pushing
    // streaming_until ahead (agents/Repo.ts).
    const agentColumns = sql.literal(
      "id, region_id, name, prefix, created_at, last_seen_at, version, browser, concurrency, " +
        "COALESCE(streaming_until > now(), false) AS connected"
    )

    const regions = SqlSchema.findAll({
      Request: Schema.UndefinedOr(RegionId),
      Result: OperatorRegion,
      execute: (id) => sql`
        SELECT r.id, r.name, r.city, r.country_code, r.continent, r.latitude, r.longitude, r.enabled,
               region_flow_capable(r.id) AS flow_capable,
               (SELECT count(*) FROM agents a WHERE a.region_id = r.id AND a.revoked_at IS NULL)::int AS agents
        FROM regions r ${id === undefined ? sql`` : sql`WHERE r.id = ${id}`}
        ORDER BY r.id
      `
    })

    const insertRegion = SqlSchema.findAll({
      Request: Schema.Struct({ region: StoredRegion }),
      Result: Schema.Struct({ id: RegionId }),
      execute: ({ region }) => sql`
        INSERT INTO regions (id, name, city, country_code, continent, latitude, longitude, enabled)
        VALUES (${region.id}, ${region.name}, ${region.city}, ${region.country_code}, ${region.continent},
                ${region.latitude}, ${region.longitude}, ${region.enabled})
        ON CONFLICT (id) DO NOTHING RETURNING id
      `
    })

    const updateRegion = SqlSchema.void({
      Request: StoredRegion,
      execute: (region) => sql`
        UPDATE regions SET name = ${region.name}, city = ${region.city}, country_code = ${region.country_code},
          continent = ${region.continent}, latitude = ${region.latitude}, longitude = ${region.longitude},
          enabled = ${region.enabled}
        WHERE id = ${region.id}
      `
    })

    const deleteRegion = SqlSchema.void({
      Request: RegionId,
      execute: (id) =>
        sql.withTransaction(
          Effect.zipRight(sql`DELETE FROM agents WHERE region_id = ${id}`, sql`DELETE FROM regions WHERE id = ${id}`)
        )
    })

    const liveAgents = SqlSchema.findAll({
      Request: Schema.Void,
      Result: AgentRow,
      execute: () => sql`
        SELECT ${agentColumns} FROM agents WHERE revoked_at IS NULL ORDER BY created_at
      `
    })

    const insertAgent = SqlSchema.single({
      Request: NewAgent,
      Result: AgentRow,
      execute: (agent) => sql`
        INSERT INTO agents (id, region_id, name, prefix, hash)
        VALUES (${agent.id}, ${agent.region_id}, ${agent.name}, ${agent.prefix}, ${agent.hash})
        RETURNING ${agentColumns}
      `
    })

    const revokeAgent = SqlSchema.findAll({
      Request: Schema.UUID,
      Result: Schema.Struct({ id: Schema.UUID }),
      execute: (id) => sql`UPDATE agents SET revoked_at = now() WHERE id = ${id} AND revoked_at IS NULL RETURNING id`
    })

    const accounts = (lookup: AccountLookup) =>
      sql`
        SELECT a.id, a.plan_id, a.created_at, a.deleted_at, o.limits AS overrides,
               ARRAY(SELECT u.email FROM users u WHERE u.account_id = a.id ORDER BY u.email) AS users,
               ARRAY(SELECT g.slug FROM orgs g WHERE g.account_id = a.id ORDER BY g.slug) AS orgs
        FROM accounts a LEFT JOIN account_overrides o ON o.account_id = a.id
        WHERE ${
          lookup._tag === "Id"
            ? sql`a.id = ${lookup.id}`
            : sql`a.id IN (SELECT account_id FROM users WHERE email = ${lookup.email})`
        }
      `.pipe(Effect.flatMap(Schema.decodeUnknown(Schema.Array(AccountRow))))

    const setPlan = SqlSchema.void({
      Request: Schema.Struct({ id: AccountId, plan_id: Plan.PlanId }),
      execute: ({ id, plan_id }) => sql`UPDATE accounts SET plan_id = ${plan_id} WHERE id = ${id}`
    })

    const setOverrides = SqlSchema.void({
      Request: Schema.Struct({ id: AccountId, limits: Schema.parseJson(Plan.Overrides) }),
      execute: ({ id, limits }) => sql`
        INSERT INTO account_overrides (account_id, limits, updated_at) VALUES (${id}, ${limits}::jsonb, now())
        ON CONFLICT (account_id) DO UPDATE SET limits = EXCLUDED.limits, updated_at = now()
      `
    })

    // Our own rows failing their schema, or the database failing, are defects at this boundary.
    return {
      regions: (id?: string) => Effect.orDie(regions(id)),
      insertRegion: (region: StoredRegion) =>
        Effect.map(Effect.orDie(insertRegion({ region })), (rows) => rows.length > 0),
      updateRegion: (region: StoredRegion) => Effect.orDie(updateRegion(region)),
      deleteRegion: (id: string) => Effect.orDie(deleteRegion(id)),
      liveAgents: Effect.orDie(liveAgents()).pipe(Effect.map((rows) => rows.map((row) => new Agent(row)))),
      insertAgent: (agent: typeof NewAgent.Type) =>
        Effect.map(Effect.orDie(insertAgent(agent)), (row) => new Agent(row)),
      revokeAgent: (id: string) => Effect.map(Effect.orDie(revokeAgent(id)), (rows) => rows.length > 0),
      accounts: (lookup: AccountLookup) => Effect.map(Effect.orDie(accounts(lookup)), (rows) => rows.map(toAccount)),
      setPlan: (id: AccountId, plan_id: Plan.PlanId) => Effect.orDie(setPlan({ id, plan_id })),
      setOverrides: (id: AccountId, limits: Plan.Overrides) => Effect.orDie(setOverrides({ id, limits }))
    }
  })
}) {}
