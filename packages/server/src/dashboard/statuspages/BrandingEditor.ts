/**
 * The editor's look of the page: the brand colour, the theme and (on a plan with white label) the powered-by line,
 * sent as `branding` through `PATCH /api/v1/status-pages/{id}`, beside a preview drawn in SVG with the public page's
 * own colour rules (Preview.ts). The preview is SVG so its colours are presentation attributes, which the
 * content security policy allows where `style=` is refused; it shows the stored look without script and follows the
 * inputs as they change with it (client/branding.ts). And the logo: uploaded as `multipart/form-data`
 * (client/logo.ts), or removed.
 */
import type * as StatusPage from "@signalman/core/StatusPage"
import { type Html, html } from "../Template.js"
import { type ComponentView, pathOf } from "./Describe.js"
import { palette, type Variant, variantsOf } from "./Preview.js"

export interface BrandingInput {
  readonly page: StatusPage.StatusPage
  readonly components: ReadonlyArray<ComponentView>
  /** The plan lets the page hide its powered-by line. */
  readonly whiteLabel: boolean
  readonly maxLogoBytes: number
}

const FORM_ID = "sp-branding"

/** The preview of one look: the header on the brand colour, the banner, two components, the footer. */
const preview = (input: BrandingInput, variant: Variant, shown: boolean): Html => {
  const { page } = input
  const colours = palette(page.branding.primary_color, variant)
  const logo = page.logo_url === null ? null : pathOf(page.logo_url)
  const names = input.components.slice(0, 2).map((c) => c.shownName)
  const rows = names.length === 0 ? ["Website", "API"] : names
  const title = `sp-preview-${variant}-title`
  const label = variant === "light" ? "Light" : "Dark"
  return html`<figure class="sp-preview-panel" data-preview-variant="${variant}"${shown ? "" : html` hidden`}>
<svg class="sp-preview" viewBox="0 0 320 190" width="320" height="190" role="img" aria-labelledby="${title}"
  font-family="system-ui, sans-serif">
<title id="${title}">Preview of the public page in the ${variant} look</title>
<rect data-part="background" x="0.5" y="0.5" width="319" height="189" rx="6" fill="${colours.background}" stroke="#8c959f"/>
<rect data-part="brand" x="0.5" y="0.5" width="319" height="44" fill="${colours.brand}"/>
${logo === null ? "" : html`<image href="${logo}" x="12" y="8" width="28" height="28" preserveAspectRatio="xMidYMid meet"/>`}
<text data-part="on-brand" x="${logo === null ? 12 : 48}" y="28" font-size="15" font-weight="700" fill="${colours.onBrand}">${page.name}</text>
<rect x="12" y="56" width="296" height="26" rx="4" fill="#1a7f37"/>
<text x="22" y="73" font-size="12" font-weight="600" fill="#ffffff">All systems operational</text>
${rows.map(
  (
    name,
    i
  ) => html`<text data-part="text" x="12" y="${106 + 24 * i}" font-size="12" font-weight="600" fill="${colours.text}">${name}</text>
<text data-part="operational" x="308" y="${106 + 24 * i}" font-size="12" text-anchor="end" fill="${colours.operational}">Operational</text>`
)}
<text data-part="link" x="12" y="174" font-size="11" text-decoration="underline" fill="${colours.link}">RSS feed</text>
<text data-part="powered" x="72" y="174" font-size="11" fill="${colours.muted}"${page.branding.hide_powered_by ? html` display="none"` : ""}>Powered by Signalman</text>
</svg>
<figcaption>${label}</figcaption>
</figure>`
}

const poweredBy = (input: BrandingInput): Html => {
  const { branding } = input.page
  if (!input.whiteLabel && !branding.hide_powered_by) {
    return html`<p class="hint">Hiding the "Powered by Signalman" line (white label) is not part of your plan.</p>`
  }
  return html`<div class="field"><label class="inline"><input name="branding.hide_powered_by" type="checkbox"
  data-type="boolean"${branding.hide_powered_by ? html` checked` : ""}> Hide the "Powered by Signalman" line</label></div>`
}

const logoSection = (input: BrandingInput): Html => {
  const { page } = input
  const api = `/api/v1/status-pages/${page.id}/logo`
  const kilobytes = Math.floor(input.maxLogoBytes / 1024)
  return html`<section aria-labelledby="h-logo">
<h2 id="h-logo">Logo</h2>
${
  page.logo_url === null
    ? html`<p class="muted">No logo yet: the header shows the page's name alone.</p>`
    : html`<div class="sp-logo-row"><img class="sp-logo" src="${pathOf(page.logo_url)}" alt="Current logo of ${page.name}">
<button type="button" class="danger js-only" data-action="${api}" data-method="DELETE"
  data-confirm="Remove the logo of ${page.name}?">Remove logo</button></div>`
}
<form data-upload="${api}" method="post" action="/dashboard/js-required" enctype="multipart/form-data">
<div class="field"><label for="sp-logo-file">${page.logo_url === null ? "Logo file" : "Replace with"}</label>
<input id="sp-logo-file" name="file" type="file" accept="image/png,image/jpeg,image/webp,image/svg+xml" required
  aria-describedby="sp-logo-hint">
<p class="hint" id="sp-logo-hint">PNG, JPEG, WebP or SVG, at most ${kilobytes} KB. Shown at the left of the page's header.</p></div>
<p data-form-status role="status"></p>
<button type="submit">Upload logo</button>
</form>
</section>`
}

export const render = (input: BrandingInput): Html => {
  const { page } = input
  const { branding } = page
  const shown = variantsOf(branding.theme)
  const theme = (value: StatusPage.Branding["theme"], label: string) =>
    html`<option value="${value}"${branding.theme === value ? html` selected` : ""}>${label}</option>`
  return html`<section aria-labelledby="h-branding">
<h2 id="h-branding">Branding</h2>
<div class="sp-branding">
<form id="${FORM_ID}" data-api="/api/v1/status-pages/${page.id}" data-method="PATCH" data-reload
  method="post" action="/dashboard/js-required">
<div class="field"><label for="sp-brand-colour">Brand colour</label>
<div class="sp-colour">
<input id="sp-brand-colour" name="branding.primary_color" type="text" maxlength="7" value="${branding.primary_color ?? ""}"
  placeholder="#2563eb" data-empty="null" autocomplete="off" aria-describedby="sp-brand-colour-hint">
<input class="js-only" type="color" data-colour-for="sp-brand-colour" value="${palette(branding.primary_color, "light").brand}"
  aria-label="Pick the brand colour">
</div>
<p class="hint" id="sp-brand-colour-hint">As #rrggbb; empty uses Signalman's blue. The header is drawn in it; links
take it where it is readable.</p></div>
<div class="field"><label for="sp-theme">Theme</label>
<select id="sp-theme" name="branding.theme">
${theme("auto", "Follow the visitor's setting")}
${theme("light", "Light")}
${theme("dark", "Dark")}
</select></div>
${poweredBy(input)}
<p data-form-status role="status"></p>
<button type="submit" class="primary">Save branding</button>
</form>
<div class="sp-previews" data-preview-for="${FORM_ID}">
<p class="sp-preview-label">Preview</p>
${preview(input, "light", shown.includes("light"))}
${preview(input, "dark", shown.includes("dark"))}
</div>
</div>
</section>
${logoSection(input)}`
}
