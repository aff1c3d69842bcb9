/**
 * The branding preview follows its form as people type, before anything is saved: `<div data-preview-for="<form
 * id>">` holds a panel per look (`[data-preview-variant="light"|"dark"]`), drawn in SVG whose parts
 * (`[data-part]`) take their colours as presentation attributes, which the content security policy allows. The
 * colours are the public page's own rules (colour.ts); the theme shows one look or both; the powered-by line hides
 * with its box. A colour picker (`input[type=color][data-colour-for=<text field id>]`) and the text field of the
 * colour keep each other in step; the text field is what the form sends.
 */
import { DEFAULT_BRAND, type Palette, palette, parseHex, type Variant, variantsOf } from "./colour.js"

const fills: ReadonlyArray<readonly [string, keyof Palette]> = [
  ["background", "background"],
  ["brand", "brand"],
  ["on-brand", "onBrand"],
  ["text", "text"],
  ["operational", "operational"],
  ["link", "link"],
  ["powered", "muted"]
]

const variantOf = (value: string | undefined): Variant | undefined =>
  value === "light" || value === "dark" ? value : undefined

const field = (form: HTMLFormElement, name: string) => {
  const element = form.elements.namedItem(name)
  return element instanceof HTMLInputElement || element instanceof HTMLSelectElement ? element : null
}

const update = (form: HTMLFormElement, preview: HTMLElement) => {
  const colour = field(form, "branding.primary_color")
  const theme = field(form, "branding.theme")
  const hide = field(form, "branding.hide_powered_by")
  const primary = colour === null ? null : (parseHex(colour.value) ?? null)
  const shown = variantsOf(theme?.value ?? "auto")
  for (const panel of preview.querySelectorAll<HTMLElement>("[data-preview-variant]")) {
    const variant = variantOf(panel.dataset["previewVariant"])
    if (variant === undefined) continue
    panel.hidden = !shown.includes(variant)
    const colours = palette(primary, variant)
    for (const [part, key] of fills) {
      for (const node of panel.querySelectorAll(`[data-part="${part}"]`)) node.setAttribute("fill", colours[key])
    }
    // Without the box (a plan without white label), the line stays as the page has it.
    if (hide instanceof HTMLInputElement) {
      for (const node of panel.querySelectorAll('[data-part="powered"]')) {
        if (hide.checked) node.setAttribute("display", "none")
        else node.removeAttribute("display")
      }
    }
  }
}

/** The picker shows the text field's colour (the default when it holds none) and writes its choice there. */
const pairPicker = (form: HTMLFormElement, refresh: () => void) => {
  for (const picker of form.querySelectorAll<HTMLInputElement>("input[type=color][data-colour-for]")) {
    const text = document.getElementById(picker.dataset["colourFor"] ?? "")
    if (!(text instanceof HTMLInputElement)) continue
    picker.addEventListener("input", () => {
      text.value = picker.value
      refresh()
    })
    text.addEventListener("input", () => {
      picker.value = parseHex(text.value) ?? DEFAULT_BRAND
    })
  }
}

export const install = () => {
  for (const preview of document.querySelectorAll<HTMLElement>("[data-preview-for]")) {
    const form = document.getElementById(preview.dataset["previewFor"] ?? "")
    if (!(form instanceof HTMLFormElement)) continue
    const refresh = () => update(form, preview)
    form.addEventListener("input", refresh)
    form.addEventListener("change", refresh)
    pairPicker(form, refresh)
  }
}
