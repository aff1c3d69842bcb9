/**
 * Paginated lists (decisions.md, "Wire shapes"): `limit` 1 to 500 (default 50) and `offset` in the query; the answer
 * is `{ data, total, limit, offset }`.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * The query fields every paginated list takes.
 *
 * @since 0.1.0
 * @category schemas
 */
export const query = {
  limit: Schema.optionalWith(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 500)), { default: () => 50 }),
  offset: Schema.optionalWith(Schema.NumberFromString.pipe(Schema.int(), Schema.nonNegative()), { default: () => 0 })
}

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
