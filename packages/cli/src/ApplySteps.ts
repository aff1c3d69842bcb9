/**
 * How a plan is carried out: its changes as the writes `apply` makes, in dependency order. Pure.
 *
 * By resource type, in creation order (variables, channels, monitors, status pages, maintenance): first the delete
 * half of each replace (it frees the key the create takes), then the creates (a replace's create half among them;
 * monitors in bulk when there are several, at most {@link BULK_SIZE} a request), then the updates, which may name
 * what was just created. Then the plan's deletes, already in reverse (maintenance first, variables last), after
 * every update that stopped naming them.
 *
 * @since 0.1.0
 */
import * as Plan from "./Plan.js"

/**
 * The most monitors one bulk create carries: well under the service's cap (10,000) and its body limit.
 *
 * @since 0.1.0
 * @category constants
 */
export const BULK_SIZE = 250

/**
 * A create or the create half of a replace.
 *
 * @since 0.1.0
 * @category models
 */
export type Creation = Plan.Create | Plan.Replace

/**
 * A monitor's create or replace.
 *
 * @since 0.1.0
 * @category models
 */
export type MonitorCreation = Creation & { readonly type: "monitor" }

/**
 * One write (or one bulk create).
 *
 * @since 0.1.0
 * @category models
 */
export type Step =
  | { readonly step: "delete"; readonly change: Plan.Delete | Plan.Replace }
  | { readonly step: "create"; readonly change: Creation }
  | { readonly step: "bulk"; readonly changes: ReadonlyArray<MonitorCreation> }
  | { readonly step: "update"; readonly change: Plan.Update }

const isMonitor = (change: Creation): change is MonitorCreation => change.type === "monitor"

const chunks = <A>(items: ReadonlyArray<A>, size: number): ReadonlyArray<ReadonlyArray<A>> =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size))

/**
 * The steps of a plan, in the order they run. A plan without changes has none.
 *
 * @since 0.1.0
 * @category ordering
 */
export const steps = (plan: Plan.Plan, bulkSize: number = BULK_SIZE): ReadonlyArray<Step> => {
  const out: Array<Step> = []
  for (const type of Plan.resourceTypes) {
    const ofType = plan.changes.filter((change) => change.type === type)
    for (const change of ofType) if (change.action === "replace") out.push({ step: "delete", change })
    const creations = ofType.filter(
      (change): change is Creation => change.action !== "update" && change.action !== "delete"
    )
    const monitors = creations.filter(isMonitor)
    if (monitors.length > 1) {
      for (const batch of chunks(monitors, bulkSize)) {
        out.push(batch.length === 1 ? { step: "create", change: batch[0]! } : { step: "bulk", changes: batch })
      }
    } else {
      for (const change of creations) out.push({ step: "create", change })
    }
    for (const change of ofType) if (change.action === "update") out.push({ step: "update", change })
  }
  for (const change of plan.changes) if (change.action === "delete") out.push({ step: "delete", change })
  return out
}

/**
 * The plan's changes a step carries out (a bulk create several; a replace's delete half is its replace).
 *
 * @since 0.1.0
 * @category ordering
 */
export const changesOf = (step: Step): ReadonlyArray<Plan.Change> =>
  step.step === "bulk" ? step.changes : [step.change]
