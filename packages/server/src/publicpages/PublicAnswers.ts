/**
 * The answers a snapshot gives, each rendered and encoded once per snapshot (`PublicBytes`): the status JSON, the
 * maintenance JSON, the page's HTML and its fragment, incident pages, the feed and the badges. The Effect routes and
 * the listener's fast path both take their bytes from here.
 */
import * as PublicStatus from "@signalman/core/PublicStatus"
import * as Schema from "effect/Schema"
import * as PublicBadge from "./PublicBadge.js"
import { Encoded, rendered } from "./PublicBytes.js"
import * as PublicFeed from "./PublicFeed.js"
import * as PublicHtml from "./PublicHtml.js"
import type { Page, Snapshot } from "./PublicSnapshot.js"

export const JSON_TYPE = "application/json; charset=utf-8"
export const HTML_TYPE = "text/html; charset=utf-8"
export const FEED_PATH = "/api/public/v1/incidents.rss"
export const BADGE_PATH = "/api/public/v1/badge.svg"

const encodeStatus = Schema.encodeSync(PublicStatus.PublicStatus)
const encodeMaintenance = Schema.encodeSync(PublicStatus.PublicMaintenanceList)

const json = (value: unknown) => Encoded.text(JSON_TYPE, JSON.stringify(value))

/** `GET /api/public/v1/status`. */
export const status = (snapshot: Snapshot): Encoded =>
  rendered(snapshot.renders, "json:status", () => json(encodeStatus(snapshot.status)))

/** `GET /api/public/v1/maintenance`. */
export const maintenance = (snapshot: Snapshot): Encoded =>
  rendered(snapshot.renders, "json:maintenance", () =>
    json(encodeMaintenance({ active: snapshot.status.active_maintenance, upcoming: snapshot.upcoming }))
  )

/** The feed's path for a page shown at `base`: on its own host the page is implied. */
export const feedUrl = (page: Page, base: string) =>
  base === "" ? FEED_PATH : `${FEED_PATH}?page=${encodeURIComponent(page.slug)}`

const htmlHeaders = (snapshot: Snapshot) => ({
  "content-security-policy": PublicHtml.CSP,
  "content-language": snapshot.status.page.locale
})

/** The page's HTML at `base` (`/p/<slug>`, `/status`, or `` on its own host), or only its dynamic region. */
export const pageHtml = (
  snapshot: Snapshot,
  base: string,
  fragmentOnly: boolean,
  /** A signed-in viewer's own feed link: that page is theirs alone, rendered for the request and never kept. */
  ownFeed: string | null = null
): Encoded => {
  const place = { base, feed: ownFeed ?? feedUrl(snapshot.page, base) }
  if (fragmentOnly) {
    // The dynamic region carries no feed link, so every reader shares it.
    return rendered(snapshot.renders, `fragment:${base}`, () =>
      Encoded.text(HTML_TYPE, PublicHtml.fragment(snapshot, place), htmlHeaders(snapshot))
    )
  }
  if (ownFeed !== null) return Encoded.text(HTML_TYPE, PublicHtml.statusPage(snapshot, place), htmlHeaders(snapshot))
  return rendered(snapshot.renders, `html:${base}`, () =>
    Encoded.text(HTML_TYPE, PublicHtml.statusPage(snapshot, place), htmlHeaders(snapshot))
  )
}

/** An incident's page at `<base>/incidents/<id>`. */
export const incidentHtml = (
  snapshot: Snapshot,
  base: string,
  incident: PublicStatus.PublicIncident,
  ownFeed: string | null = null
): Encoded => {
  const render = () =>
    Encoded.text(
      HTML_TYPE,
      PublicHtml.incidentPage(snapshot, { base, feed: ownFeed ?? feedUrl(snapshot.page, base) }, incident),
      htmlHeaders(snapshot)
    )
  return ownFeed !== null ? render() : rendered(snapshot.renders, `incident:${base}:${incident.id}`, render)
}

/** The RSS feed as read at `origin`, the page shown at `pageBase`. */
export const feed = (snapshot: Snapshot, origin: string, pageBase: string): Encoded =>
  rendered(snapshot.renders, `rss:${origin}`, () =>
    Encoded.text(
      PublicFeed.CONTENT_TYPE,
      PublicFeed.feed(snapshot, origin, pageBase, `${origin}${feedUrl(snapshot.page, pageBase)}`)
    )
  )

const BADGE_HEADERS = { "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'" }

/** The page's badge, or a component's; undefined for a component not on the page. */
export const badge = (snapshot: Snapshot, component: string | undefined): Encoded | undefined => {
  const key = `badge:${component?.toLowerCase() ?? ""}`
  const hit = snapshot.renders.get(key)
  if (hit !== undefined) return hit
  const svg = PublicBadge.badge(snapshot, component)
  if (svg === undefined) return undefined
  const encoded = Encoded.text(PublicBadge.CONTENT_TYPE, svg, BADGE_HEADERS)
  snapshot.renders.set(key, encoded)
  return encoded
}
