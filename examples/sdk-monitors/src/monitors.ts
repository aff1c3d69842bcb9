/**
 * Monitors as a script manages them with the Promise client: clear what an earlier run left, create a few, list
 * them with the iterator (a page at a time), run each once and read what was stored.
 */
import type { Signalman } from "@signalman/sdk"

/** The tag that marks this example's monitors, so a run finds (and replaces) what the previous one made. */
export const TAG = "sdk-example"

export const run = async (signalman: Signalman, site: string, log: (line: string) => void): Promise<void> => {
  // Ids first, deletes after: deleting while paging by offset would shift the pages under the loop.
  const earlier: Array<string> = []
  for await (const target of signalman.targets.list({ tag: TAG })) earlier.push(target.id)
  for (const id of earlier) await signalman.targets.delete(id)
  if (earlier.length > 0) log(`removed ${earlier.length} monitors of an earlier run`)

  const paths = [
    ["home", "/"],
    ["health", "/health"],
    ["status", "/status"]
  ] as const
  for (const [name, path] of paths) {
    await signalman.targets.create({
      name: `${TAG} ${name}`,
      check: { type: "http", url: new URL(path, site).toString(), expected_status: "2xx" },
      interval: 300,
      tags: [TAG]
    })
  }
  log(`created ${paths.length} monitors of ${site}`)

  // Two a page, to show the iterator going through pages; `.pages()` yields the pages themselves.
  let pages = 0
  const mine: Array<{ readonly id: string; readonly name: string }> = []
  for await (const page of signalman.targets.list({ tag: TAG, limit: 2 }).pages()) {
    pages++
    mine.push(...page.data)
  }
  log(`listed ${mine.length} monitors tagged ${TAG} in ${pages} pages`)

  for (const target of [...mine].sort((a, b) => a.name.localeCompare(b.name))) {
    const now = await signalman.targets.checkNow(target.id)
    const stored = await signalman.targets.results(target.id, { limit: 1 })
    const uptime = await signalman.targets.uptime(target.id)
    // Uptime is time-based: a result counts for the interval after it, so a new monitor has none yet (n/a).
    const pct = uptime.uptime_pct === null ? "n/a" : `${uptime.uptime_pct.toFixed(2)}%`
    const ms = Math.round(now.duration_ms)
    log(`${target.name}: ${now.status} in ${ms} ms; latest stored ${stored.data[0]?.status}; uptime ${pct}`)
  }
}
