/**
 * The status badge, an SVG in the usual two-part shape: a label and the page's (or one component's) status in the
 * page's language, coloured by status. Text is escaped; widths are estimated from the character count, so no font
 * metrics are needed.
 */
import type { ComponentStatus, OverallStatus } from "@signalman/core/PublicStatus"
import { escapeHtml as x } from "../http/Html.js"
import type { Snapshot } from "./PublicSnapshot.js"
import { texts } from "./PublicText.js"

export const CONTENT_TYPE = "image/svg+xml; charset=utf-8"

const fills: Record<ComponentStatus | OverallStatus, string> = {
  operational: "#1a7f37",
  degraded: "#9a6700",
  partial_outage: "#bc4c00",
  major_outage: "#cf222e",
  maintenance: "#0969da",
  unknown: "#57606a"
}

const width = (text: string) => Math.round([...text].length * 6.6 + 12)

/** The badge of the page, or of `componentId` (undefined when the component is not on the page). */
export const badge = (snapshot: Snapshot, componentId: string | undefined): string | undefined => {
  const t = texts[snapshot.status.page.locale]
  let label = snapshot.status.page.name
  let status: ComponentStatus | OverallStatus = snapshot.status.status
  let value = t.overall[snapshot.status.status]
  if (componentId !== undefined) {
    const component = snapshot.status.components.find((c) => c.id === componentId.toLowerCase())
    if (component === undefined) return undefined
    label = component.name
    status = component.status
    value = t.status[component.status]
  }
  const lw = width(label)
  const vw = width(value)
  const total = lw + vw
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${total}" height="20" role="img" aria-label="${x(`${label}: ${value}`)}">
<title>${x(`${label}: ${value}`)}</title>
<rect width="${lw}" height="20" fill="#555"/>
<rect x="${lw}" width="${vw}" height="20" fill="${fills[status]}"/>
<g fill="#fff" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11" text-anchor="middle">
<text x="${lw / 2}" y="14">${x(label)}</text>
<text x="${lw + vw / 2}" y="14">${x(value)}</text>
</g>
</svg>
`
}
