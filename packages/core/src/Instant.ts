/**
 * An instant as requests carry it: an RFC 3339 timestamp with `Z` or an explicit offset.
 *
 * @since 0.2.0
 */
import * as Schema from "effect/Schema"

// RFC 3339 with an explicit offset: a bare date or a local time would be read in the server's zone, silently.
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i

/**
 * An instant in a request body: an RFC 3339 timestamp with `Z` or an offset.
 *
 * @since 0.2.0
 * @category schemas
 */
export const Instant = Schema.compose(
  Schema.String.pipe(
    Schema.filter((s) => RFC3339.test(s) || "must be an RFC 3339 timestamp with a zone (2026-05-01T22:00:00Z)")
  ),
  Schema.DateTimeUtc
).annotations({ identifier: "Instant", jsonSchema: { type: "string", format: "date-time" } })
