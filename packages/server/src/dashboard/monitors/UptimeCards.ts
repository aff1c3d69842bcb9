/**
 * The monitor's uptime over the last 24 hours, 7, 30 and 90 days, as the API's `/uptime` computes it (time based,
 * maintenance and recovery stretches left out), one card each. A span longer than the plan keeps is said to be cut.
 */
import { type Html, html } from "../Template.js"
import * as Format from "./DetailFormat.js"

export interface Window {
  readonly label: string
  readonly uptime_pct: number | null
  readonly down_secs: number
  readonly checks: number
  /** Where the figure starts, when the plan's retention cut the span. */
  readonly cutAt: Date | undefined
}

const card = (w: Window): Html =>
  html`<div class="card">
<h3 class="card-title">${w.label}</h3>
<p class="figure">${Format.percent(w.uptime_pct)}</p>
<p class="note">${
    w.uptime_pct === null
      ? "Nothing judged yet"
      : `${w.checks} ${w.checks === 1 ? "check" : "checks"}${w.down_secs > 0 ? `, down ${Format.seconds(w.down_secs)}` : ", no downtime counted"}`
  }${w.cutAt === undefined ? "" : html`; from ${Format.time(w.cutAt)}, as far back as your plan keeps`}</p>
</div>`

export const section = (windows: ReadonlyArray<Window>): Html =>
  html`<section aria-labelledby="uptime" class="detail-section">
<h2 id="uptime">Uptime</h2>
<div class="cards">${windows.map(card)}</div>
</section>`
