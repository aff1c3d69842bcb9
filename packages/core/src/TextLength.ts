/**
 * Text limits counted as people count characters: code points, so an emoji is one character, not two UTF-16 units.
 *
 * @since 0.2.0
 */
import * as Schema from "effect/Schema"

/**
 * How many characters (code points) `s` holds.
 *
 * @since 0.2.0
 * @category counting
 */
export const characters = (s: string): number => [...s].length

/**
 * A string schema refined to at most `max` characters, with `maxLength` in its JSON Schema.
 *
 * @since 0.2.0
 * @category filters
 */
export const atMost =
  (max: number) =>
  <S extends Schema.Schema<string, string>>(self: S): Schema.filter<S> =>
    Schema.filter<S>((s) => characters(s) <= max || `must be at most ${max} characters`, {
      jsonSchema: { maxLength: max }
    })(self)
