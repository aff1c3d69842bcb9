/**
 * The benchmarks' monitors, made through the real API for a bench user (`bench-user.ts`): the operator lets the
 * account hold them, then bulk creates (10,000 at most each) make them. `createHttpMonitors`: the engine's, the i-th
 * checking `urlOf(i)` every `interval` seconds; `createHeartbeatMonitors`: the ingest bench's. Each answers the ids
 * in the order asked.
 */
import { MAX_BULK_TARGETS } from "@signalman/core/api/Targets"
import { type BenchUser, READS_PER_MINUTE } from "./bench-user.js"

export interface Monitors {
  readonly count: number
  readonly interval: number
  readonly urlOf: (index: number) => string
}

/** The most targets one `POST /api/v1/targets/bulk` takes. */
const BULK_MAX = MAX_BULK_TARGETS

export const createHttpMonitors = (
  base: string,
  user: BenchUser,
  adminToken: string,
  monitors: Monitors
): Promise<ReadonlyArray<string>> =>
  createMonitors(
    base,
    user,
    adminToken,
    { max_targets: monitors.count, min_check_interval_secs: monitors.interval },
    Array.from({ length: monitors.count }, (_, i) => ({
      name: `bench-${i}`,
      interval: monitors.interval,
      check: { type: "http", url: monitors.urlOf(i) }
    }))
  )

/**
 * `count` heartbeat monitors (period 1 h, grace 5 min: no silence verdict during a benchmark), named
 * `<prefix>-<i>`; the account may hold `maxTargets` in all, so later calls can add more.
 */
export const createHeartbeatMonitors = (
  base: string,
  user: BenchUser,
  adminToken: string,
  count: number,
  prefix: string,
  maxTargets: number
): Promise<ReadonlyArray<string>> =>
  createMonitors(
    base,
    user,
    adminToken,
    { max_targets: maxTargets },
    Array.from({ length: count }, (_, i) => ({
      name: `${prefix}-${i}`,
      check: { type: "heartbeat", period: 3600, grace: 300 }
    }))
  )

const createMonitors = async (
  base: string,
  user: BenchUser,
  adminToken: string,
  overrides: Readonly<Record<string, number>>,
  targets: ReadonlyArray<unknown>
): Promise<ReadonlyArray<string>> => {
  const overridden = await fetch(`${base}/operator/accounts/${user.accountId}/overrides`, {
    method: "PUT",
    headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
    body: JSON.stringify({ api_reads_per_minute: READS_PER_MINUTE, ...overrides })
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
  for (let from = 0; from < targets.length; from += BULK_MAX) {
    const chunk = targets.slice(from, from + BULK_MAX)
    const created = await fetch(`${base}/api/v1/targets/bulk`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ targets: chunk })
    })
    if (created.status !== 201) {
      throw new Error(`bulk create: ${created.status} ${(await created.text()).slice(0, 500)}`)
    }
    const body: unknown = await created.json()
    const data = typeof body === "object" && body !== null && "data" in body ? body.data : undefined
    const made = Array.isArray(data)
      ? data.map((t: unknown) => (typeof t === "object" && t !== null && "id" in t ? String(t.id) : ""))
      : []
    if (made.length !== chunk.length) throw new Error(`bulk create answered ${made.length} targets`)
    ids.push(...made)
  }
  return ids
}
