/**
 * The engine benchmarks' monitors, made through the real API for a bench user (`bench-user.ts`): the operator lets
 * the account hold `count` monitors at `interval` seconds, then one bulk create makes them, the i-th checking
 * `urlOf(i)`. Answers their ids in the same order. More than a bulk request takes (`MAX_BULK_TARGETS`) go in as
 * many requests as needed, in order.
 */
import { MAX_BULK_TARGETS } from "@signalman/core/api/Targets"
import { type BenchUser, READS_PER_MINUTE } from "./bench-user.js"

export interface Monitors {
  readonly count: number
  readonly interval: number
  readonly urlOf: (index: number) => string
}

export const createHttpMonitors = async (
  base: string,
  user: BenchUser,
  adminToken: string,
  monitors: Monitors
): Promise<ReadonlyArray<string>> => {
  const overridden = await fetch(`${base}/operator/accounts/${user.accountId}/overrides`, {
    method: "PUT",
    headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
    body: JSON.stringify({
      api_reads_per_minute: READS_PER_MINUTE,
      max_targets: monitors.count,
      min_check_interval_secs: monitors.interval
    })
  })
  if (overridden.status !== 200) throw new Error(`overrides: ${overridden.status} ${await overridden.text()}`)
  const orgs: unknown = await (
    await fetch(`${base}/api/v1/orgs`, { headers: { authorization: `Bearer ${user.token}` } })
  ).json()
  const list = typeof orgs === "object" && orgs !== null && "data" in orgs ? orgs.data : undefined
  const org: unknown = Array.isArray(list) ? list[0] : undefined
  const orgId = typeof org === "object" && org !== null && "slug" in org ? String(org.slug) : ""
  if (orgId === "") throw new Error(`no org for the bench user: ${JSON.stringify(orgs).slice(0, 300)}`)
  const auth = {
    authorization: `Bearer ${user.token}`,
    "content-type": "application/json",
    "x-signalman-org": orgId
  }
  const ids: Array<string> = []
  for (let from = 0; from < monitors.count; from += MAX_BULK_TARGETS) {
    const targets = Array.from({ length: Math.min(MAX_BULK_TARGETS, monitors.count - from) }, (_, k) => ({
      name: `bench-${from + k}`,
      interval: monitors.interval,
      check: { type: "http", url: monitors.urlOf(from + k) }
    }))
    const created = await fetch(`${base}/api/v1/targets/bulk`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ targets })
    })
    if (created.status !== 201) {
      throw new Error(`bulk create: ${created.status} ${(await created.text()).slice(0, 500)}`)
    }
    const body: unknown = await created.json()
    const data = typeof body === "object" && body !== null && "data" in body ? body.data : undefined
    if (Array.isArray(data)) {
      for (const t of data) ids.push(typeof t === "object" && t !== null && "id" in t ? String(t.id) : "")
    }
  }
  if (ids.length !== monitors.count) throw new Error(`bulk create answered ${ids.length} targets`)
  return ids
}
