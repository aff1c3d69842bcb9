/**
 * Paginated lists (decisions.md, "Wire shapes"): `limit` 1 to 500 (default 50) and `offset` in the query; the answer
 * is `{ data, total, limit, offset }`.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * The largest page a list answers.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_LIMIT = 500

/**
 * The page size when none is asked for.
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_LIMIT = 50

/**
 * The query fields every paginated list takes.
 *
 * @since 0.1.0
 * @category schemas
 */
export const query = {
  limit: Schema.optionalWith(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, MAX_LIMIT)), {
    default: () => DEFAULT_LIMIT
  }),
  offset: Schema.optionalWith(Schema.NumberFromString.pipe(Schema.int(), Schema.nonNegative()), { default: () => 0 })
}

/**
 * The same fields where a JSON caller sends numbers (an MCP tool's arguments), with the same bounds; absent stays
 * absent (so the arguments' JSON Schema keeps its descriptions) and {@link settle} applies the defaults.
 *
 * @since 0.1.0
 * @category schemas
 */
export const json = {
  limit: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, MAX_LIMIT)), { exact: true }).annotations({
    description: `Page size, 1 to ${MAX_LIMIT} (default ${DEFAULT_LIMIT})`
  }),
  offset: Schema.optionalWith(Schema.Int.pipe(Schema.nonNegative()), { exact: true }).annotations({
    description: "How many items to skip (default 0)"
  })
}

/**
 * The page asked for, with the query's defaults where nothing was asked.
 *
 * @since 0.1.0
 * @category constructors
 */
export const settle = (asked: { readonly limit?: number | undefined; readonly offset?: number | undefined }) => ({
  limit: asked.limit ?? DEFAULT_LIMIT,
  offset: asked.offset ?? 0
})

/**
 * The page of a list of `item`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const page = <S extends Schema.Schema.Any>(item: S, identifier: string) =>
  Schema.Struct({
    data: Schema.Array(item),
    total: Schema.Int,
    limit: Schema.Int,
    offset: Schema.Int
  }).annotations({ identifier })
