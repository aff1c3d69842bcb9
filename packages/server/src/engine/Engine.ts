/**
 * The monitoring engine's layers (docs/engine.md): `work` is what a worker process runs (the local region's
 * scheduler and the upkeep loops), `reading` is what the API needs to run check-now and answer the reads. Both
 * take the result observers and uptime exclusions from the caller (`Monitoring.ts` binds them in `App.ts`).
 */
import * as Layer from "effect/Layer"
import { Probes } from "../probes/Probes.js"
import { Variables } from "../variables/Variables.js"
import { MonitorResults } from "./MonitorResults.js"
import { Readings } from "./Readings.js"
import type { ResultObservers } from "./ResultObservers.js"
import { ResultStore } from "./ResultStore.js"
import * as Scheduler from "./Scheduler.js"
import { StoredChecks } from "./StoredChecks.js"
import * as Upkeep from "./Upkeep.js"
import type { UptimeExclusions } from "./UptimeExclusions.js"

// Storing results and preparing stored checks, with the probes they run under (the scheduler's batches and
// check-now both need them).
const running = <E, R>(observers: Layer.Layer<ResultObservers, E, R>) =>
  Layer.mergeAll(ResultStore.Default, StoredChecks.Default).pipe(
    Layer.provideMerge(Probes.Default),
    Layer.provide([observers, Variables.Default])
  )

/** A worker's engine: results go to `observers` once stored. */
export const work = <E, R>(observers: Layer.Layer<ResultObservers, E, R>) =>
  Layer.merge(Scheduler.layer, Upkeep.layer).pipe(Layer.provide(running(observers)))

/** The API's engine: check-now (results to `observers`) and the reads, uptime leaving out `exclusions`. */
export const reading = <E1, R1, E2, R2>(
  observers: Layer.Layer<ResultObservers, E1, R1>,
  exclusions: Layer.Layer<UptimeExclusions, E2, R2>
) => Layer.merge(running(observers), Readings.Default).pipe(Layer.provide(exclusions))

/** Results of the monitors without a probe (heartbeat, manual), stored and observed like the probes'. */
export const monitorResults = <E, R>(observers: Layer.Layer<ResultObservers, E, R>) =>
  MonitorResults.Default.pipe(Layer.provide(ResultStore.Default), Layer.provide(observers))
