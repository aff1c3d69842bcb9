/**
 * The HTML of a public status page, rendered from its snapshot: the overall banner, active incidents with their
 * timeline, maintenance, components by group with a 90-day bar each (one bar a day, coloured by its worst status
 * and carrying its own text, so nothing is told by colour alone), and the past week's incidents. It needs no
 * script; an optional one refreshes the dynamic region (`?fragment=1`) every minute. Every value is escaped.
 */
import type * as PublicStatus from "@signalman/core/PublicStatus"
import { contrastRatio, textOn } from "@signalman/core/PublicStatus"
import * as DateTime from "effect/DateTime"
import { escapeHtml as e } from "../http/Html.js"
import type { Snapshot } from "./PublicSnapshot.js"
import { formatInstant, formatPct, formatShortDay, type Text, texts } from "./PublicText.js"

export const REFRESH_SCRIPT_PATH = "/status-assets/refresh.js"

/** The refresh script: replaces the dynamic region with `?fragment=1` every 60 s; nothing else needs it. */
export const refreshScript = `(function () {
  var region = document.getElementById("live");
  if (!region || !window.fetch) return;
  var url = region.getAttribute("data-fragment");
  setInterval(function () {
    fetch(url, { credentials: "same-origin" }).then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) { if (html !== null) region.innerHTML = html; }).catch(function () {});
  }, 60000);
})();
`

export const CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; script-src 'self'; connect-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

/** Where the page lives: `/p/<slug>`, `/status`, or `` on its own host. Incident pages are `<base>/incidents/<id>`. */
export interface Place {
  readonly base: string
  /** The feed's URL for this page. */
  readonly feed: string
}

const colors: Record<PublicStatus.DayStatus | PublicStatus.ComponentStatus, string> = {
  operational: "#1a7f37",
  degraded: "#9a6700",
  partial_outage: "#bc4c00",
  major_outage: "#cf222e",
  maintenance: "#0969da",
  unknown: "#6e7781",
  no_data: "#afb8c1"
}

const ms = (t: DateTime.Utc) => DateTime.toEpochMillis(t)

const LIGHT_BG = "#ffffff"
const DARK_BG = "#0d1117"

/** A link colour readable on `background`: the brand colour when it reaches 4.5:1, else a safe default. */
const linkOn = (primary: string, background: string, fallback: string) =>
  contrastRatio(primary, background) >= 4.5 ? primary : fallback

const style = (page: PublicStatus.PublicPage) => {
  const primary = page.primary_color
  const light = `--bg:${LIGHT_BG};--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--card:#f6f8fa;--link:${linkOn(primary, LIGHT_BG, "#0550ae")};`
  const dark = `--bg:${DARK_BG};--fg:#e6edf3;--muted:#9198a1;--line:#3d444d;--card:#151b23;--link:${linkOn(primary, DARK_BG, "#79c0ff")};`
  const scheme =
    page.theme === "light"
      ? `:root{color-scheme:light;${light}}`
      : page.theme === "dark"
        ? `:root{color-scheme:dark;${dark}}`
        : `:root{color-scheme:light dark;${light}}@media (prefers-color-scheme:dark){:root{${dark}}}`
  return `${scheme}
:root{--brand:${primary};--on-brand:${textOn(primary)}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif}
a{color:var(--link)}
:focus-visible{outline:3px solid var(--link);outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background:var(--bg);padding:.5rem}
.skip:focus{left:.5rem}
header{background:var(--brand);color:var(--on-brand);padding:1rem}
header .in,main,footer{max-width:56rem;margin:0 auto;padding:0 1rem}
header .in{display:flex;align-items:center;gap:.75rem;padding:0}
header img{max-height:2.5rem;max-width:10rem}
header h1{margin:0;font-size:1.5rem}
header a{color:inherit}
.banner{margin:1.5rem 0;padding:1rem 1.25rem;border-radius:.5rem;color:#fff;font-size:1.25rem;font-weight:600}
.banner h2{margin:0;font-size:1.25rem}
h2{font-size:1.25rem;margin:2rem 0 .75rem}
h3{font-size:1rem;margin:1.25rem 0 .5rem;color:var(--muted)}
.card{border:1px solid var(--line);border-radius:.5rem;padding:1rem;margin:.75rem 0;background:var(--card)}
.card h3{color:var(--fg);margin:0 0 .25rem}
.meta{color:var(--muted);font-size:.875rem}
ul.components{list-style:none;margin:0;padding:0;border:1px solid var(--line);border-radius:.5rem}
ul.components>li{padding:.75rem 1rem;border-top:1px solid var(--line)}
ul.components>li:first-child{border-top:0}
.row{display:flex;justify-content:space-between;gap:1rem;flex-wrap:wrap}
.name{font-weight:600}
.st{font-weight:600}
.st-operational{color:#1a7f37}.st-degraded{color:#9a6700}.st-partial_outage{color:#bc4c00}
.st-major_outage{color:#cf222e}.st-maintenance{color:#0969da}.st-unknown{color:var(--muted)}
@media (prefers-color-scheme:dark){.st-operational{color:#3fb950}.st-degraded{color:#d29922}.st-partial_outage{color:#db6d28}.st-major_outage{color:#f85149}.st-maintenance{color:#4493f8}}
ol.bars{display:flex;gap:1px;list-style:none;margin:.5rem 0 .25rem;padding:0;height:2rem}
ol.bars li{flex:1;border-radius:1px;min-width:1px;background:${colors.operational}}
${(Object.keys(barClass) as Array<PublicStatus.DayStatus>)
  .filter((k) => k !== "operational")
  .map((k) => `ol.bars .b-${barClass[k]}{background:${colors[k]}}`)
  .join("")}
.b-p,.b-m{box-shadow:inset 0 -.6rem 0 rgba(0,0,0,.35)}
.v{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.scale{display:flex;justify-content:space-between;color:var(--muted);font-size:.75rem}
ol.timeline{list-style:none;padding:0;margin:.5rem 0 0}
ol.timeline li{margin:.5rem 0}
footer{margin:3rem auto 2rem;color:var(--muted);font-size:.875rem;display:flex;gap:1.5rem;flex-wrap:wrap}
@media (prefers-reduced-motion:reduce){*{animation:none!important;transition:none!important;scroll-behavior:auto!important}}
`
}

const incidentTitle = (t: Text, incident: PublicStatus.PublicIncident) => incident.title ?? t.status[incident.impact]

const componentNames = (snapshot: Snapshot, ids: ReadonlyArray<string>) =>
  ids
    .map((id) => snapshot.status.components.find((c) => c.id === id)?.name)
    .filter((name): name is string => name !== undefined)

const timeline = (
  t: Text,
  locale: PublicStatus.PublicPage["locale"],
  updates: ReadonlyArray<PublicStatus.PublicIncidentUpdate>
) =>
  updates.length === 0
    ? ""
    : `<ol class="timeline">${[...updates]
        .reverse()
        .map(
          (u) =>
            `<li><strong>${e(t.phase[u.phase] ?? u.phase)}</strong> · <time datetime="${e(DateTime.formatIso(u.created_at))}" class="meta">${e(formatInstant(locale, ms(u.created_at)))}</time><br>${e(u.message)}</li>`
        )
        .join("")}</ol>`

const incidentCard = (
  snapshot: Snapshot,
  place: Place,
  incident: PublicStatus.PublicIncident,
  heading: "h3" | "h4"
) => {
  const page = snapshot.status.page
  const t = texts[page.locale]
  const names = componentNames(snapshot, incident.components)
  const when =
    incident.ended_at === null
      ? `${t.started} ${formatInstant(page.locale, ms(incident.started_at))}`
      : `${t.resolved} ${formatInstant(page.locale, ms(incident.ended_at))}`
  return `<article class="card">
<${heading}><a href="${e(`${place.base}/incidents/${incident.id}`)}">${e(incidentTitle(t, incident))}</a></${heading}>
<p class="meta"><span class="st st-${e(incident.impact)}">${e(t.status[incident.impact])}</span> · ${e(when)}${names.length === 0 ? "" : ` · ${e(names.join(", "))}`}</p>
${incident.description === null ? "" : `<p>${e(incident.description)}</p>`}
${incident.ended_at === null ? timeline(t, page.locale, snapshot.updates.get(incident.id) ?? []) : ""}
</article>`
}

const maintenanceCard = (snapshot: Snapshot, window: PublicStatus.PublicMaintenance) => {
  const page = snapshot.status.page
  const t = texts[page.locale]
  const names = componentNames(snapshot, window.components)
  const latest = window.updates[window.updates.length - 1]
  return `<article class="card">
<h3>${e(window.title)}</h3>
<p class="meta"><span class="st st-maintenance">${e(t.maintenanceStatus[window.status] ?? window.status)}</span> · <time datetime="${e(DateTime.formatIso(window.starts_at))}">${e(formatInstant(page.locale, ms(window.starts_at)))}</time> – <time datetime="${e(DateTime.formatIso(window.ends_at))}">${e(formatInstant(page.locale, ms(window.ends_at)))}</time>${names.length === 0 ? "" : ` · ${e(names.join(", "))}`}</p>
${window.description === "" ? "" : `<p>${e(window.description)}</p>`}
${latest === undefined ? "" : `<p><strong>${e(latest.status === null ? t.updates : (t.maintenanceStatus[latest.status] ?? latest.status))}</strong>: ${e(latest.message)}</p>`}
</article>`
}

// Day bars carry a one-letter class: 4,500 bars on a page of 50 components make every byte count.
const barClass: Record<PublicStatus.DayStatus, string> = {
  operational: "o",
  degraded: "d",
  partial_outage: "p",
  major_outage: "m",
  maintenance: "x",
  no_data: "n"
}

const NOTABLE: ReadonlyArray<PublicStatus.DayStatus> = ["major_outage", "partial_outage", "degraded", "maintenance"]

/**
 * A component's day bars and their text. Each bar has a short label (day, status when not operational, uptime) as
 * its tooltip; the text everyone gets, screen readers and keyboards included, is one line under the bars: the
 * uptime, then each day that was not operational, by status. So nothing is told by colour alone, and the page does
 * not repeat a sentence for each of the 90 days of every component.
 */
const bars = (snapshot: Snapshot, component: PublicStatus.PublicComponent, days: number) => {
  const page = snapshot.status.page
  const t = texts[page.locale]
  const all = snapshot.bars.get(component.id) ?? []
  const shown = all.slice(Math.max(0, all.length - days))
  const notable = new Map<PublicStatus.DayStatus, Array<string>>()
  let items = ""
  for (const bar of shown) {
    const day = formatShortDay(page.locale, bar.date)
    let label = day
    if (bar.status !== "operational") label += ` ${t.status[bar.status]}`
    if (bar.uptime_pct !== null) label += ` ${formatPct(page.locale, bar.uptime_pct, 2)}`
    // Operational is the list's own colour; the end tag of a list item is implied by the next one.
    items += `<li${bar.status === "operational" ? "" : ` class=b-${barClass[bar.status]}`} title="${e(label)}">`
    if (NOTABLE.includes(bar.status)) {
      const list = notable.get(bar.status) ?? []
      list.push(bar.incidents > 0 ? `${day} (${t.incidentsOn(bar.incidents)})` : day)
      notable.set(bar.status, list)
    }
  }
  const uptime =
    component.uptime_pct === null ? t.noData : `${formatPct(page.locale, component.uptime_pct)} ${t.uptime}`
  const summary = [
    uptime,
    ...NOTABLE.flatMap((status) => {
      const list = notable.get(status)
      return list === undefined ? [] : [`${t.status[status]}: ${list.join(", ")}`]
    })
  ].join(" · ")
  return `<ol class="bars" aria-hidden="true">${items}</ol>
<div class="scale" aria-hidden="true"><span>${e(t.daysAgo(days))}</span><span>${e(t.today)}</span></div>
<p class="meta"><span class="v">${e(t.history(days))}: </span>${e(summary)}</p>`
}

const componentItem = (snapshot: Snapshot, component: PublicStatus.PublicComponent) => {
  const page = snapshot.status.page
  const t = texts[page.locale]
  return `<li>
<div class="row"><span class="name">${e(component.name)}</span><span class="st st-${component.status}">${e(t.status[component.status])}</span></div>
${component.description === null ? "" : `<p class="meta">${e(component.description)}</p>`}
${bars(snapshot, component, 90)}
</li>`
}

const componentsSection = (snapshot: Snapshot) => {
  const t = texts[snapshot.status.page.locale]
  const groups = new Map<string | null, Array<PublicStatus.PublicComponent>>()
  for (const component of snapshot.status.components) {
    const list = groups.get(component.group) ?? []
    list.push(component)
    groups.set(component.group, list)
  }
  const onlyUngrouped = groups.size === 1 && groups.has(null)
  const body = [...groups]
    .map(
      ([group, list]) =>
        `${onlyUngrouped ? "" : `<h3>${e(group ?? t.other)}</h3>`}<ul class="components">${list.map((c) => componentItem(snapshot, c)).join("")}</ul>`
    )
    .join("")
  return `<section aria-labelledby="h-components"><h2 id="h-components">${e(t.components)}</h2>${body}</section>`
}

/** The dynamic region: banner, incidents, maintenance, components, past incidents. */
export const fragment = (snapshot: Snapshot, place: Place): string => {
  const status = snapshot.status
  const t = texts[status.page.locale]
  const open = status.incidents.filter((i) => i.status === "open")
  const past = status.incidents.filter((i) => i.status === "resolved")
  const maintenance = [...status.active_maintenance, ...status.upcoming_maintenance]
  return `<section id="status" class="banner" style="background:${colors[status.status]}" aria-labelledby="h-overall"><h2 id="h-overall">${e(t.overall[status.status])}</h2></section>
${open.length === 0 ? "" : `<section aria-labelledby="h-active"><h2 id="h-active">${e(t.activeIncidents)}</h2>${open.map((i) => incidentCard(snapshot, place, i, "h3")).join("")}</section>`}
${maintenance.length === 0 ? "" : `<section aria-labelledby="h-maintenance"><h2 id="h-maintenance">${e(t.maintenance)}</h2>${maintenance.map((w) => maintenanceCard(snapshot, w)).join("")}</section>`}
${componentsSection(snapshot)}
<section aria-labelledby="h-past"><h2 id="h-past">${e(t.pastIncidents)}</h2>${past.length === 0 ? `<p>${e(t.noIncidents)}</p>` : past.map((i) => incidentCard(snapshot, place, i, "h3")).join("")}</section>`
}

const frame = (snapshot: Snapshot, place: Place, title: string, main: string, fragmentUrl: string | null) => {
  const page = snapshot.status.page
  const t = texts[page.locale]
  const home = place.base === "" ? "/" : place.base
  return `<!doctype html>
<html lang="${e(page.locale)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${e(title)}</title>
<link rel="alternate" type="application/rss+xml" title="${e(t.feed)}" href="${e(place.feed)}">
<style>${style(page)}</style>
</head>
<body>
<a class="skip" href="#main">${e(t.skip)}</a>
<header><div class="in">${page.logo_url === null ? "" : `<img src="${e(page.logo_url)}" alt="">`}<p style="margin:0;font-size:1.5rem;font-weight:700"><a href="${e(home)}">${e(page.name)}</a></p></div></header>
<main id="main">
${main.replace("%%LIVE%%", fragmentUrl === null ? "" : `<div id="live" data-fragment="${e(fragmentUrl)}">`)}
</main>
<footer><a href="${e(place.feed)}">${e(t.feed)}</a>${page.powered_by ? `<span>${e(t.poweredBy)}</span>` : ""}</footer>
${fragmentUrl === null ? "" : `<script src="${REFRESH_SCRIPT_PATH}" defer></script>`}
</body>
</html>`
}

/** The whole page. */
export const statusPage = (snapshot: Snapshot, place: Place): string => {
  const page = snapshot.status.page
  const fragmentUrl = `${place.base === "" ? "/" : place.base}?fragment=1`
  return frame(
    snapshot,
    place,
    page.name,
    `<h1 class="v">${e(page.name)}</h1>%%LIVE%%${fragment(snapshot, place)}</div>`,
    fragmentUrl
  )
}

/** One incident's page with its whole public timeline. */
export const incidentPage = (snapshot: Snapshot, place: Place, incident: PublicStatus.PublicIncident): string => {
  const page = snapshot.status.page
  const t = texts[page.locale]
  const names = componentNames(snapshot, incident.components)
  const title = incidentTitle(t, incident)
  const updates = snapshot.updates.get(incident.id) ?? []
  return frame(
    snapshot,
    place,
    `${title} · ${page.name}`,
    `<p><a href="${e(place.base === "" ? "/" : place.base)}">← ${e(t.back)}</a></p>
<article>
<h1>${e(title)}</h1>
<p class="meta"><span class="st st-${e(incident.impact)}">${e(t.status[incident.impact])}</span> · ${e(t.started)} <time datetime="${e(DateTime.formatIso(incident.started_at))}">${e(formatInstant(page.locale, ms(incident.started_at)))}</time>${incident.ended_at === null ? "" : ` · ${e(t.resolved)} <time datetime="${e(DateTime.formatIso(incident.ended_at))}">${e(formatInstant(page.locale, ms(incident.ended_at)))}</time>`}</p>
${names.length === 0 ? "" : `<p>${e(t.components)}: ${e(names.join(", "))}</p>`}
${incident.description === null ? "" : `<p>${e(incident.description)}</p>`}
<section aria-labelledby="h-updates"><h2 id="h-updates">${e(t.updates)}</h2>${timeline(t, page.locale, updates)}</section>
</article>`,
    null
  )
}
