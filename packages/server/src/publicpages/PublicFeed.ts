/**
 * The incident feed of a status page, RSS 2.0: the page's incidents of the last year, newest first (at most 50),
 * each linking to its incident page. Every value is escaped for XML.
 */
import * as DateTime from "effect/DateTime"
import { escapeHtml as x } from "../http/Html.js"
import type { Snapshot } from "./PublicSnapshot.js"
import { formatInstant, texts } from "./PublicText.js"

const MAX_ITEMS = 50

export const CONTENT_TYPE = "application/rss+xml; charset=utf-8"

const rfc822 = (ms: number) => new Date(ms).toUTCString()

/** `origin` and `base` make the absolute links: `<origin><base>/incidents/<id>`. */
export const feed = (snapshot: Snapshot, origin: string, base: string, self: string): string => {
  const page = snapshot.status.page
  const t = texts[page.locale]
  const home = `${origin}${base === "" ? "/" : base}`
  const items = snapshot.incidents.slice(0, MAX_ITEMS).map((incident) => {
    const updates = snapshot.updates.get(incident.id) ?? []
    const latest = updates[updates.length - 1]
    const title = incident.title ?? t.status[incident.impact]
    const lines = [
      `${t.status[incident.impact]} · ${
        incident.ended_at === null
          ? `${t.started} ${formatInstant(page.locale, DateTime.toEpochMillis(incident.started_at))}`
          : `${t.resolved} ${formatInstant(page.locale, DateTime.toEpochMillis(incident.ended_at))}`
      }`,
      ...(incident.description === null ? [] : [incident.description]),
      ...(latest === undefined ? [] : [`${t.phase[latest.phase] ?? latest.phase}: ${latest.message}`])
    ]
    const changed = latest === undefined ? (incident.ended_at ?? incident.started_at) : latest.created_at
    return `<item>
<title>${x(title)}</title>
<link>${x(`${origin}${base}/incidents/${incident.id}`)}</link>
<guid isPermaLink="false">${x(`${incident.id}`)}</guid>
<pubDate>${rfc822(DateTime.toEpochMillis(incident.started_at))}</pubDate>
<category>${x(incident.impact)}</category>
<description>${x(lines.join("\n"))}</description>
<atom:updated>${x(DateTime.formatIso(changed))}</atom:updated>
</item>`
  })
  return `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom">
<channel>
<title>${x(`${page.name} · ${t.pastIncidents}`)}</title>
<link>${x(home)}</link>
<description>${x(t.feed)}</description>
<language>${x(page.locale)}</language>
<lastBuildDate>${rfc822(snapshot.generatedAt)}</lastBuildDate>
<atom:link href="${x(self)}" rel="self" type="application/rss+xml"/>
${items.join("\n")}
</channel>
</rss>
`
}
