/**
 * Request bodies: objects that accept only the keys their resource documents.
 *
 * Every body schema is built with {@link Struct} (or annotated with {@link strict}), so a misspelt key, or a
 * read-only field echoed back from a GET, fails the decode with an "is unexpected" issue carrying the key's
 * path. The server turns that issue into 422 `INVALID_JSON`. Map-shaped fields (`Schema.Record`) keep free keys.
 *
 * @since 0.1.0
 */

import * as Schema from "effect/Schema"
import type * as AST from "effect/SchemaAST"

/**
 * The parse options every request body decodes with: excess keys are errors, and every issue is reported so
 * the answer can prefer an unknown key over a type error elsewhere in the same body.
 *
 * @since 0.1.0
 * @category annotations
 */
export const strict = {
  parseOptions: { onExcessProperty: "error", errors: "all" } satisfies AST.ParseOptions
} as const

/**
 * A struct that refuses unknown keys.
 *
 * @since 0.1.0
 * @category constructors
 */
export const Struct = <Fields extends Schema.Struct.Fields>(fields: Fields): Schema.Struct<Fields> =>
  Schema.Struct(fields).annotations(strict)
