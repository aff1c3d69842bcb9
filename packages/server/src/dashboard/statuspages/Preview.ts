/**
 * The colours of a status page's branding preview, by the public page's own rules (core's `PublicStatus`: the brand
 * colour or the default, black or white text on it, the brand as link colour where it reads at 4.5:1, else the
 * page's default link colour), for each look the page's theme shows. The browser recomputes the same as the inputs
 * change (client/colour.ts).
 */
import * as PublicStatus from "@signalman/core/PublicStatus"
import type * as StatusPage from "@signalman/core/StatusPage"

/** One of the looks a page can be seen in. */
export type Variant = "light" | "dark"

/** The colours of a page's preview in one look. */
export interface Palette {
  readonly brand: string
  readonly onBrand: string
  readonly background: string
  readonly text: string
  readonly muted: string
  readonly link: string
  readonly operational: string
}

/** The public page's own colours in each look (PublicHtml). */
const looks = {
  light: { background: "#ffffff", text: "#1f2328", muted: "#59636e", link: "#0550ae", operational: "#1a7f37" },
  dark: { background: "#0d1117", text: "#e6edf3", muted: "#9198a1", link: "#79c0ff", operational: "#3fb950" }
} as const

/** The public page's colours for a brand colour (null: the default) in one look. */
export const palette = (primary: string | null, variant: Variant): Palette => {
  const brand = PublicStatus.safeColor(primary)
  const look = looks[variant]
  return {
    brand,
    onBrand: PublicStatus.textOn(brand),
    background: look.background,
    text: look.text,
    muted: look.muted,
    link: PublicStatus.contrastRatio(brand, look.background) >= 4.5 ? brand : look.link,
    operational: look.operational
  }
}

/** The looks a theme shows: one when fixed, both when the page follows its visitor's setting. */
export const variantsOf = (theme: StatusPage.Branding["theme"]): ReadonlyArray<Variant> =>
  theme === "light" ? ["light"] : theme === "dark" ? ["dark"] : ["light", "dark"]
