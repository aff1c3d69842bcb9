/**
 * One scrape: the series kept in Effect's registry (`Series.ts`, and the passkey and credential counters counted where
 * they happen), the deployment's state read from the database (`Repo.ts`), and the process's own figures from
 * prom-client's default collectors (CPU, memory, event-loop lag, GC, handles), in a registry of their own. Built only
 * when metrics are enabled, so a process without them starts no collector.
 */
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as PromClient from "prom-client"
import * as Exposition from "./Exposition.js"
import { MetricsRepo, type Outbox, type RegionAgents } from "./Repo.js"
import * as Series from "./Series.js"

/** The families read from the database, as gauges. */
export const stateFamilies = (outbox: Outbox, agents: ReadonlyArray<RegionAgents>): Array<Exposition.Family> => [
  {
    name: "signalman_outbox_pending",
    help: "Notifications waiting in the outbox, by stage (notices not yet fanned out; deliveries pending or retrying)",
    type: "gauge",
    samples: [
      { name: "signalman_outbox_pending", labels: [["stage", "notices"]], value: outbox.notices },
      { name: "signalman_outbox_pending", labels: [["stage", "deliveries"]], value: outbox.deliveries }
    ]
  },
  {
    name: "signalman_outbox_oldest_pending_seconds",
    help: "Age of the oldest pending delivery (0 when none is pending)",
    type: "gauge",
    samples: [{ name: "signalman_outbox_oldest_pending_seconds", labels: [], value: outbox.oldest_secs }]
  },
  {
    name: "signalman_agents_connected",
    help: "Agents with a stream open now, by region (remote regions; enabled is whether the region takes checks)",
    type: "gauge",
    samples: agents.map((a) => ({
      name: "signalman_agents_connected",
      labels: [
        ["region", a.region],
        ["enabled", String(a.enabled)]
      ],
      value: a.connected
    }))
  }
]

export class Scrape extends Effect.Service<Scrape>()("Signalman/MetricsScrape", {
  effect: Effect.gen(function* () {
    const repo = yield* MetricsRepo
    const processRegistry = new PromClient.Registry()
    PromClient.collectDefaultMetrics({ register: processRegistry })

    /** The exposition text of everything, as `GET /metrics` answers it. */
    const text = Effect.gen(function* () {
      const [outbox, agents] = yield* Effect.all([repo.outbox, repo.agents], { concurrency: 2 })
      const kept = Exposition.fromSnapshot(Metric.unsafeSnapshot(), Series.declared())
      const process = yield* Effect.promise(() => processRegistry.metrics())
      return `${Exposition.render([...kept, ...stateFamilies(outbox, agents)])}${process}`
    })

    return { text }
  }),
  dependencies: [MetricsRepo.Default]
}) {}
