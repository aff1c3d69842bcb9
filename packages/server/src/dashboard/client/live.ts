/**
 * Live updates of a page's monitor rows: the page marks its table with `data-live-src` (the tab's stream,
 * `GET /dashboard/events`), and each `monitors` event carries rows the server rendered with the page's own code:
 * for each, the cells of `tr[data-monitor=<id>]` named by `data-part` are replaced, and a change of state is said in
 * the page's announcement region. The browser reconnects by itself (with the last event's id, so the server sends
 * what was missed); a `stale` event means too much was missed, and the page reloads unless someone is in the middle
 * of something on it. One stream per tab: it is closed when the page is left, and reopened from the last event's
 * moment if the browser brings the page back from its cache.
 */

interface RowUpdate {
  readonly id: string
  readonly state: string
  readonly stateText: string
  readonly parts: ReadonlyArray<readonly [string, string]>
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const rowOf = (value: unknown): RowUpdate | undefined => {
  if (!isRecord(value)) return undefined
  const { id, state, stateText, parts } = value
  if (typeof id !== "string" || typeof state !== "string" || typeof stateText !== "string" || !isRecord(parts)) {
    return undefined
  }
  const cells = Object.entries(parts).flatMap(([name, markup]) =>
    typeof markup === "string" ? [[name, markup] as const] : []
  )
  return { id, state, stateText, parts: cells }
}

/** The rows of a `monitors` event; a malformed one is ignored rather than half applied. */
export const decode = (data: string): ReadonlyArray<RowUpdate> => {
  let parsed: unknown
  try {
    parsed = JSON.parse(data)
  } catch {
    return []
  }
  const rows = isRecord(parsed) ? parsed["rows"] : undefined
  if (!Array.isArray(rows)) return []
  return rows.flatMap((row) => {
    const update = rowOf(row)
    return update === undefined ? [] : [update]
  })
}

const say = (text: string) => {
  const region = document.querySelector<HTMLElement>("[data-live-announce]")
  if (region !== null) region.textContent = text
}

const apply = (updates: ReadonlyArray<RowUpdate>) => {
  const changes: Array<string> = []
  for (const update of updates) {
    const row = document.querySelector<HTMLTableRowElement>(`tr[data-monitor="${CSS.escape(update.id)}"]`)
    if (row === null) continue
    for (const [name, markup] of update.parts) {
      const cell = row.querySelector<HTMLElement>(`[data-part="${CSS.escape(name)}"]`)
      // The markup is the server's, rendered by the same escaping templates as the page itself.
      if (cell !== null && cell.innerHTML !== markup) cell.innerHTML = markup
    }
    const before = row.dataset["state"]
    row.dataset["state"] = update.state
    if (before !== undefined && before !== update.state) {
      const name = row.querySelector("th")?.querySelector("a")?.textContent ?? "A monitor"
      changes.push(`${name}: ${update.stateText}`)
    }
  }
  if (changes.length > 0) say(changes.length <= 3 ? changes.join(". ") : `${changes.length} monitors changed state`)
}

const status = (text: string) => {
  for (const node of document.querySelectorAll<HTMLElement>("[data-live-status]")) {
    node.textContent = text
  }
}

/** Whether reloading now would lose something: rows selected, or a field being typed in. */
const busy = (): boolean =>
  document.querySelector("input[name=ids]:checked") !== null ||
  document.activeElement instanceof HTMLInputElement ||
  document.activeElement instanceof HTMLTextAreaElement

/** The stream's URL with `since` moved to the moment of the last event the page got, if any. */
const from = (src: string, lastId: string): string => {
  if (lastId === "") return src
  const url = new URL(src, window.location.href)
  url.searchParams.set("since", lastId)
  return `${url.pathname}${url.search}`
}

export const install = () => {
  const table = document.querySelector<HTMLElement>("[data-live-src]")
  const src = table?.dataset["liveSrc"]
  if (src === undefined || typeof EventSource === "undefined") return
  let lastId = ""
  let source: EventSource | undefined
  const open = () => {
    const stream = new EventSource(from(src, lastId))
    source = stream
    stream.addEventListener("open", () => status("Live"))
    stream.addEventListener("error", () =>
      status(stream.readyState === EventSource.CLOSED ? "Live updates off: reload to resume" : "Reconnecting…")
    )
    stream.addEventListener("monitors", (event) => {
      if (!(event instanceof MessageEvent) || typeof event.data !== "string") return
      lastId = event.lastEventId
      apply(decode(event.data))
    })
    stream.addEventListener("stale", () => {
      if (!busy()) {
        window.location.reload()
        return
      }
      stream.close()
      status("Live updates paused: reload to see the latest")
    })
  }
  open()
  // Closed when the page is left, so it can be kept for going back; reopened from where it stood if it is.
  window.addEventListener("pagehide", () => source?.close())
  window.addEventListener("pageshow", (event) => {
    if (event.persisted) open()
  })
}
