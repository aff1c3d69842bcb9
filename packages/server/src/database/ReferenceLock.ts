/**
 * The org's reference lock. A monitor refers to the org's variables (`{{key}}`) and notification channels by name
 * or id; a write that stores references and a delete of a referenced thing both take this lock inside their
 * transaction, so a delete cannot slip between a write's check and its commit (`targets/References.ts`).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/** Holds the org's reference lock to the end of the current transaction. */
export const lock = (orgId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql`SELECT pg_advisory_xact_lock(hashtext(${`org-references:${orgId}`}))`
  )
