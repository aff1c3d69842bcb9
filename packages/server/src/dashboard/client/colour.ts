/**
 * The colour rules of a public status page, for the branding preview as the inputs change: the same WCAG
 * relative-luminance arithmetic as core's `PublicStatus` (`textOn`, `contrastRatio`, `safeColor`) and the public
 * page's choice of link colour, so the preview shows what the page will. Written again here, pure and small,
 * because the browser's bundle must not pull core's schemas in; the server draws the first preview with core's own
 * functions (statuspages/Preview.ts), and the browser test holds the two to the same colours.
 */

/** The public page's colour when the brand has none (core's `safeColor` fallback). */
export const DEFAULT_BRAND = "#2563eb"

/** The public page's backgrounds and its link colours when the brand's is unreadable on them. */
export const LIGHT = { background: "#ffffff", text: "#1f2328", muted: "#59636e", link: "#0550ae" } as const
export const DARK = { background: "#0d1117", text: "#e6edf3", muted: "#9198a1", link: "#79c0ff" } as const

/** `#rrggbb` (any case, surrounding spaces allowed) in lower case; undefined for anything else. */
export const parseHex = (value: string): string | undefined => {
  const v = value.trim().toLowerCase()
  return /^#[0-9a-f]{6}$/.test(v) ? v : undefined
}

const luminance = (hex: string): number => {
  const channel = (i: number) => {
    const c = Number.parseInt(hex.slice(1 + 2 * i, 3 + 2 * i), 16) / 255
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
  }
  return 0.2126 * channel(0) + 0.7152 * channel(1) + 0.0722 * channel(2)
}

/** WCAG 2.1 contrast ratio of two `#rrggbb` colours (1 to 21). */
export const contrastRatio = (a: string, b: string): number => {
  const la = luminance(a)
  const lb = luminance(b)
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05)
}

/** Black or white, whichever reads better on `hex` (the text of the page's header on the brand colour). */
export const textOn = (hex: string): "#000000" | "#ffffff" => {
  const l = luminance(hex)
  return (l + 0.05) / 0.05 >= 1.05 / (l + 0.05) ? "#000000" : "#ffffff"
}

/** The page's link colour on `background`: the brand's when it reaches 4.5:1 there, else the page's default. */
export const linkOn = (brand: string, background: string, fallback: string): string =>
  contrastRatio(brand, background) >= 4.5 ? brand : fallback

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

/** The public page's colours for a brand colour (null or malformed: the default) in one look. */
export const palette = (primary: string | null, variant: Variant): Palette => {
  const brand = (primary === null ? undefined : parseHex(primary)) ?? DEFAULT_BRAND
  const base = variant === "light" ? LIGHT : DARK
  return {
    brand,
    onBrand: textOn(brand),
    background: base.background,
    text: base.text,
    muted: base.muted,
    link: linkOn(brand, base.background, base.link),
    operational: variant === "light" ? "#1a7f37" : "#3fb950"
  }
}

/** The looks a theme shows: one when fixed, both when the page follows its visitor's setting. */
export const variantsOf = (theme: string): ReadonlyArray<Variant> =>
  theme === "light" ? ["light"] : theme === "dark" ? ["dark"] : ["light", "dark"]
