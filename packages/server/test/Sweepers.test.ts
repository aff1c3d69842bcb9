import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { uuidv7 } from "../src/infra/Ids.js"
import { SweepersRepo } from "../src/workers/Repo.js"
import { sweeps } from "../src/workers/Sweepers.js"
import * as TestServer from "./support/TestServer.js"

describe("sweepers", () => {
  it.scopedLive("delete what nothing will read again and keep the rest", () =>
    Effect.gen(function* () {
      const server = yield* TestServer.start({ DATA_DIR: "memory://", ROLE: "api" })
      const sql = server.sql
      const sweep = (name: string) => {
        const found = sweeps(true).find((s) => s.name === name)
        if (found === undefined) throw new Error(`no sweep ${name}`)
        return Effect.provide(
          found.run,
          SweepersRepo.Default.pipe(Layer.provide(Layer.succeed(SqlClient.SqlClient, sql)))
        )
      }
      const accountId = uuidv7()
      const userId = uuidv7()
      const orgId = uuidv7()
      yield* sql`INSERT INTO accounts (id, plan_id) VALUES (${accountId}, 'free')`
      yield* sql`INSERT INTO users (id, account_id, email) VALUES (${userId}, ${accountId}, 'sweep@example.com')`
      yield* sql`INSERT INTO orgs (id, account_id, slug, name) VALUES (${orgId}, ${accountId}, 'sweep', 'Sweep')`
      const hash = (s: string) => Buffer.from(s.padEnd(32, "x"))
      yield* sql`
        INSERT INTO magic_links (id, email, token_hash, code_hash, browser_hash, expires_at) VALUES
          (${uuidv7()}, 'sweep@example.com', ${hash("old")}, ${hash("c")}, ${hash("b")}, now() - interval '8 days'),
          (${uuidv7()}, 'sweep@example.com', ${hash("new")}, ${hash("c")}, ${hash("b")}, now() - interval '6 days')
      `
      yield* sql`
        INSERT INTO sessions (id, token_hash, user_id, idle_expires_at, absolute_expires_at) VALUES
          (${uuidv7()}, ${hash("s1")}, ${userId}, now() - interval '8 days', now() + interval '1 day'),
          (${uuidv7()}, ${hash("s2")}, ${userId}, now() + interval '1 day', now() + interval '2 days')
      `
      yield* sql`
        INSERT INTO invitations (id, org_id, email, role, token_hash, expires_at, accepted_at) VALUES
          (${uuidv7()}, ${orgId}, 'a@example.com', 'member', ${hash("i1")}, now() - interval '40 days', now() - interval '40 days'),
          (${uuidv7()}, ${orgId}, 'b@example.com', 'member', ${hash("i2")}, now() + interval '5 days', NULL)
      `
      yield* sql`
        INSERT INTO rate_windows (subject, category, window_start, used) VALUES
          ('account:x', 'api_reads', now() - interval '1 hour', 5), ('account:x', 'api_reads', now(), 5)
      `
      yield* sql`
        INSERT INTO idempotency_keys (org_id, user_id, operation, key, fingerprint, status, response, created_at) VALUES
          (${orgId}, ${userId}, 'targets.create', 'old', 'f', 201, '{}'::jsonb, now() - interval '25 hours'),
          (${orgId}, ${userId}, 'targets.create', 'new', 'f', 201, '{}'::jsonb, now() - interval '23 hours')
      `
      yield* sql`
        INSERT INTO agent_receipts (result_id, target_id, region, due, agent_id, received_at) VALUES
          (${uuidv7()}, ${uuidv7()}, 'eu', now() - interval '8 days', ${uuidv7()}, now() - interval '8 days'),
          (${uuidv7()}, ${uuidv7()}, 'eu', now() - interval '6 days', ${uuidv7()}, now() - interval '6 days')
      `
      yield* sql`
        INSERT INTO one_off_runs (id, region, kind, org_id, requested_by, start_by, deadline) VALUES
          (${uuidv7()}, 'eu', 'http', ${orgId}, ${userId}, now() - interval '62 minutes', now() - interval '61 minutes'),
          (${uuidv7()}, 'eu', 'http', ${orgId}, ${userId}, now() - interval '2 minutes', now() - interval '1 minute')
      `
      // Passkey ceremonies go once their 5 minutes are up (a finished one was deleted as it was read).
      yield* sql`
        INSERT INTO passkey_ceremonies (id, kind, challenge, expires_at) VALUES
          (${uuidv7()}, 'login', 'c1', now() - interval '1 second'),
          (${uuidv7()}, 'login', 'c2', now() + interval '5 minutes')
      `
      expect(yield* sweep("passkey_ceremonies")).toBe(1)
      expect((yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM passkey_ceremonies`)[0]?.n).toBe(1)
      yield* sql`
        INSERT INTO oauth_states (state_hash, provider, expires_at) VALUES
          (${hash("stale-state")}, 'github', now() - interval '1 second'),
          (${hash("live-state")}, 'google', now() + interval '9 minutes')
      `
      yield* sql`
        INSERT INTO oauth_identities (id, user_id, provider, provider_key, label)
        VALUES (${uuidv7()}, ${userId}, 'github', '1', 'octocat')
      `
      expect(yield* sweep("oauth_states")).toBe(1)
      expect(yield* sql`SELECT provider FROM oauth_states`).toEqual([{ provider: "google" }])
      // A webhook event id is kept 30 days (Stripe retries for 3, resends by hand up to 30).
      yield* sql`
        INSERT INTO billing_events (event_id, type, received_at) VALUES
          ('evt_old', 'invoice.paid', now() - interval '31 days'),
          ('evt_recent', 'invoice.paid', now() - interval '29 days')
      `
      expect(yield* sweep("billing_events")).toBe(1)
      expect(yield* sql`SELECT event_id FROM billing_events`).toEqual([{ event_id: "evt_recent" }])
      expect(yield* sweep("idempotency_keys")).toBe(1)
      expect(yield* sweep("agent_receipts")).toBe(1)
      expect(yield* sweep("one_off_runs")).toBe(1)
      expect(yield* sweep("magic_links")).toBe(1)
      expect(yield* sweep("sessions")).toBe(1)
      expect(yield* sweep("invitations")).toBe(1)
      expect(yield* sweep("rate_windows")).toBe(1)
      const [left] = yield* sql<{
        links: number
        sessions: number
        invitations: number
        windows: number
        receipts: number
        runs: number
      }>`
        SELECT (SELECT count(*) FROM magic_links)::int AS links, (SELECT count(*) FROM sessions)::int AS sessions,
               (SELECT count(*) FROM invitations)::int AS invitations, (SELECT count(*) FROM rate_windows)::int AS windows,
               (SELECT count(*) FROM agent_receipts)::int AS receipts, (SELECT count(*) FROM one_off_runs)::int AS runs
      `
      expect(left).toEqual({ links: 1, sessions: 1, invitations: 1, windows: 1, receipts: 1, runs: 1 })
      expect(sweeps(false).map((s) => s.name)).not.toContain("magic_links")

      // An account past its deletion grace is purged with its people and orgs; one still in grace is kept.
      const graced = uuidv7()
      yield* sql`INSERT INTO accounts (id, plan_id, deleted_at, purge_after) VALUES (${graced}, 'free', now(), now() + interval '1 day')`
      yield* sql`UPDATE accounts SET deleted_at = now() - interval '31 days', purge_after = now() - interval '1 day' WHERE id = ${accountId}`
      yield* sql`INSERT INTO memberships (org_id, user_id, role) VALUES (${orgId}, ${userId}, 'owner')`
      expect(yield* sweep("purge_accounts")).toBe(1)
      const [after] = yield* sql<{
        accounts: number
        users: number
        orgs: number
        sessions: number
        identities: number
      }>`
        SELECT (SELECT count(*) FROM accounts)::int AS accounts, (SELECT count(*) FROM users)::int AS users,
               (SELECT count(*) FROM orgs)::int AS orgs, (SELECT count(*) FROM sessions)::int AS sessions,
               (SELECT count(*) FROM oauth_identities)::int AS identities
      `
      // Linked provider identities go with their person (ON DELETE CASCADE).
      expect(after).toEqual({ accounts: 1, users: 0, orgs: 0, sessions: 0, identities: 0 })
    })
  )
})
