/**
 * Times in the viewer's time zone. Pages are rendered on the server, which does not know the viewer's zone, so they
 * write every instant in UTC: `<time datetime="<UTC instant>" data-local>` with UTC text, a `datetime-local` input
 * with its UTC wall-clock value and the instant in `data-instant`, and `[data-time-zone]` naming UTC. This script
 * rewrites all three in the browser's zone (the UTC text stays in the `<time>`'s title); without it the page still
 * reads, in UTC, and says so.
 */
import { localOf } from "./instants.js"

const display = new Intl.DateTimeFormat(undefined, {
  year: "numeric",
  month: "short",
  day: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  timeZoneName: "short"
})

const zoneName = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone

/** Rewrites the times and time inputs inside `root` (the whole document at start). */
export const localize = (root: ParentNode = document) => {
  for (const time of root.querySelectorAll<HTMLTimeElement>("time[data-local]")) {
    const date = new Date(time.dateTime)
    if (Number.isNaN(date.getTime())) continue
    if (time.title === "") time.title = time.textContent ?? ""
    time.textContent = display.format(date)
  }
  for (const input of root.querySelectorAll<HTMLInputElement>("input[type=datetime-local][data-instant]")) {
    const local = localOf(input.dataset["instant"] ?? "")
    if (local !== undefined) input.value = local
  }
  for (const note of root.querySelectorAll<HTMLElement>("[data-time-zone]")) {
    note.textContent = `your time zone (${zoneName()})`
  }
}

export const install = () => {
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", () => localize())
  else localize()
}
