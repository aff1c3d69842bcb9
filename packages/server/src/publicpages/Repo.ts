/**
 * The public surface's SQL: published pages of live orgs by slug or custom domain (a page the plan holds is not
 * published: see `engine/Upkeep.ts`), and what a page's snapshot is built from (its components with their latest
 * result, the incidents touching them in the last year with their public updates, and the daily rollups).
 * Timestamps arrive as `Date`s. The database failing, or our own rows failing their schema, are defects at this
 * boundary.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { AccountId, OrgId } from "@signalman/core/Identity"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

/** A published page as stored; branding and access are read leniently by the snapshot. */
export const PageRow = Schema.Struct({
  id: Schema.String,
  org_id: OrgId,
  account_id: AccountId,
  slug: Schema.String,
  name: Schema.String,
  public_locale: Schema.String,
  custom_domain: Schema.NullOr(Schema.String),
  branding: Schema.Unknown,
  access: Schema.Unknown,
  logo_sha256: Schema.NullOr(Schema.String)
})
export type PageRow = typeof PageRow.Type

export const ComponentRow = Schema.Struct({
  target_id: Schema.String,
  name: Schema.String,
  public_name: Schema.NullOr(Schema.String),
  public_description: Schema.NullOr(Schema.String),
  public_group: Schema.NullOr(Schema.String),
  latest: Schema.NullOr(Schema.Literal("up", "degraded", "down", "error"))
})

const utc = Schema.DateTimeUtcFromDate
export const IncidentRow = Schema.Struct({
  id: Schema.String,
  public_title: Schema.NullOr(Schema.String),
  public_description: Schema.NullOr(Schema.String),
  impact: Schema.Literal("degraded", "partial_outage", "major_outage"),
  severity: Schema.NullOr(Schema.Literal("critical", "major", "minor")),
  started_at: utc,
  ended_at: Schema.NullOr(utc),
  recovering_since: Schema.NullOr(utc),
  components: Schema.Array(Schema.String)
})
export type IncidentRow = typeof IncidentRow.Type

export const UpdateRow = Schema.Struct({
  id: Schema.String,
  incident_id: Schema.String,
  phase: Schema.Literal("investigating", "identified", "monitoring", "resolved", "postmortem"),
  message: Schema.String,
  created_at: utc
})

export const RollupRow = Schema.Struct({
  target_id: Schema.String,
  day: Schema.String,
  up_secs: Schema.Number,
  down_secs: Schema.Number
})

const Ids = Schema.Array(Schema.String)

export class PublicPagesRepo extends Effect.Service<PublicPagesRepo>()("Signalman/PublicPagesRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const selectPage = sql`
      SELECT p.id::text AS id, p.org_id::text AS org_id, p.account_id::text AS account_id, p.slug, p.name,
        p.public_locale, p.custom_domain, p.branding, p.access, l.sha256 AS logo_sha256
      FROM status_pages p
      JOIN orgs o ON o.id = p.org_id AND o.deleted_at IS NULL
      LEFT JOIN status_page_logos l ON l.page_id = p.id
    `

    const bySlug = SqlSchema.findOne({
      Request: Schema.String,
      Result: PageRow,
      execute: (slug) => sql`${selectPage} WHERE p.published AND NOT p.held AND lower(p.slug) = ${slug}`
    })

    const byDomain = SqlSchema.findOne({
      Request: Schema.String,
      Result: PageRow,
      execute: (host) => sql`${selectPage} WHERE p.published AND NOT p.held AND lower(p.custom_domain) = ${host}`
    })

    const publishedSlugs = SqlSchema.findAll({
      Request: Schema.Void,
      Result: Schema.Struct({ slug: Schema.String }),
      execute: () => sql`
        SELECT p.slug FROM status_pages p JOIN orgs o ON o.id = p.org_id AND o.deleted_at IS NULL
        WHERE p.published AND NOT p.held LIMIT 2
      `
    })

    const components = SqlSchema.findAll({
      Request: Schema.Struct({ page_id: Schema.String, org_id: Schema.String }),
      Result: ComponentRow,
      execute: ({ page_id, org_id }) => sql`
        SELECT c.target_id::text AS target_id, t.name, c.public_name, c.public_description, c.public_group,
          (SELECT r.status FROM check_results r WHERE r.target_id = c.target_id
            ORDER BY r.checked_at DESC LIMIT 1) AS latest
        FROM status_page_components c JOIN targets t ON t.id = c.target_id AND t.org_id = ${org_id}
        WHERE c.page_id = ${page_id}
        ORDER BY c.sort_order, c.created_at, c.target_id
      `
    })

    const incidents = SqlSchema.findAll({
      Request: Schema.Struct({ org_id: Schema.String, ids: Ids, since: Schema.DateFromSelf }),
      Result: IncidentRow,
      execute: ({ org_id, ids, since }) => sql`
        SELECT i.id::text AS id, i.public_title, i.public_description, i.impact, i.severity, i.started_at,
          i.ended_at, i.recovering_since,
          ARRAY(
            SELECT x::text FROM unnest(ARRAY[i.target_id] || ARRAY(
              SELECT c.target_id FROM incident_components c WHERE c.incident_id = i.id)) AS x
            WHERE x = ANY(${ids}::uuid[]) ORDER BY array_position(${ids}::uuid[], x)
          ) AS components
        FROM incidents i
        WHERE i.org_id = ${org_id} AND (i.ended_at IS NULL OR i.ended_at > ${since})
          AND (i.target_id = ANY(${ids}::uuid[]) OR EXISTS (
            SELECT 1 FROM incident_components c WHERE c.incident_id = i.id AND c.target_id = ANY(${ids}::uuid[])))
        ORDER BY i.started_at DESC, i.id DESC
      `
    })

    const updates = SqlSchema.findAll({
      Request: Ids,
      Result: UpdateRow,
      execute: (incidentIds) => sql`
        SELECT id::text AS id, incident_id::text AS incident_id, phase, message, created_at
        FROM incident_updates WHERE incident_id = ANY(${incidentIds}::uuid[]) AND kind = 'update'
        ORDER BY created_at, position
      `
    })

    const rollups = SqlSchema.findAll({
      Request: Schema.Struct({ ids: Ids, from: Schema.DateFromSelf }),
      Result: RollupRow,
      execute: ({ ids, from }) => sql`
        SELECT target_id::text AS target_id, to_char(bucket AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
          sum(up_secs)::float8 AS up_secs, sum(down_secs)::float8 AS down_secs
        FROM result_rollups_daily
        WHERE target_id = ANY(${ids}::uuid[]) AND bucket >= ${from}
        GROUP BY 1, 2
      `
    })

    const optional = <A>(effect: Effect.Effect<Option.Option<A>, unknown>) =>
      Effect.map(Effect.orDie(effect), Option.getOrUndefined)

    return {
      /** The published page of a slug (lower case). */
      bySlug: (slug: string) => optional(bySlug(slug)),
      /** The published page whose custom domain is `host` (lower case). */
      byDomain: (host: string) => optional(byDomain(host)),
      /** Up to two slugs of published pages: the instance's only page is the one answer of a single row. */
      publishedSlugs: Effect.orDie(publishedSlugs()),
      /** The page's monitors in their order, with the latest result of each. */
      components: (pageId: string, orgId: string) => Effect.orDie(components({ page_id: pageId, org_id: orgId })),
      /** The org's incidents touching these monitors, open or ended after `since`, newest first. */
      incidents: (orgId: string, ids: ReadonlyArray<string>, since: Date) =>
        ids.length === 0 ? Effect.succeed([]) : Effect.orDie(incidents({ org_id: orgId, ids, since })),
      /** The public updates of these incidents, oldest first. */
      updates: (incidentIds: ReadonlyArray<string>) =>
        incidentIds.length === 0 ? Effect.succeed([]) : Effect.orDie(updates(incidentIds)),
      /** Daily up and down seconds of these monitors from `from`. */
      rollups: (ids: ReadonlyArray<string>, from: Date) =>
        ids.length === 0 ? Effect.succeed([]) : Effect.orDie(rollups({ ids, from }))
    }
  })
}) {}
