/**
 * The languages a public status page can be shown in (`public_locale`). The page's fixed text (headings, status
 * words, dates) comes in each of these; everything the org writes is shown as written.
 *
 * @since 0.2.0
 */
import * as Schema from "effect/Schema"

/**
 * Supported locales, as BCP 47 tags. `en` is the default of a new page.
 *
 * @since 0.2.0
 * @category models
 */
export const locales = ["en", "de", "fr", "es", "pt", "it", "nl"] as const

/**
 * @since 0.2.0
 * @category models
 */
export const PublicLocale = Schema.Literal(...locales).annotations({
  identifier: "PublicLocale",
  description: "The language of the page's own text."
})

/**
 * @since 0.2.0
 * @category models
 */
export type PublicLocale = typeof PublicLocale.Type

/**
 * @since 0.2.0
 * @category constants
 */
export const defaultLocale: PublicLocale = "en"
