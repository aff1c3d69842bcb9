import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as DecodeFailure from "../../src/DecodeFailure.js"

/** The code and field the API answers for a body `schema` refuses (as the server turns a decode failure), or null. */
export const refusal = <A, I>(schema: Schema.Schema<A, I>, input: unknown) =>
  Either.match(Schema.decodeUnknownEither(schema)(input), {
    onLeft: (error) => {
      const e = DecodeFailure.toApiError(ParseResult.ArrayFormatter.formatErrorSync(error))
      return { code: e.code, field: e.field }
    },
    onRight: () => null
  })

/** A 400 `VALIDATION_FAILED` naming `field`. */
export const invalid = (field: string) => ({ code: "VALIDATION_FAILED", field })
