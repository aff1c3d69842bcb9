/**
 * Carrying out a plan against the service (`signalman apply`): its steps (`ApplySteps`) one after the other, each
 * write carrying `Signalman-Managed-By` (`<project>/<key>`; the bulk create the project, its keys in
 * `managed_keys`), monitor creates an `Idempotency-Key` (so the SDK may retry a lost answer without a second
 * monitor; the other kinds are kept single by their managed key, which a second create would be refused). The first
 * step that fails stops the run: what follows may depend on it. The report says what was applied and what was not.
 *
 * @since 0.1.0
 */
import { randomUUID } from "node:crypto"
import * as ManagedBy from "@signalman/core/ManagedBy"
import type { Signalman } from "@signalman/sdk/Signalman"
import type { SignalmanError } from "@signalman/sdk/SignalmanError"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ApplySteps from "./ApplySteps.js"
import type * as Current from "./Current.js"
import * as Plan from "./Plan.js"
import * as PlanText from "./PlanText.js"
import * as Requests from "./Requests.js"
import * as ServiceClient from "./ServiceClient.js"

/**
 * What a run did.
 *
 * @since 0.1.0
 * @category models
 */
export interface Report {
  /** One line per change carried out, in order (`+ monitor api`). */
  readonly applied: ReadonlyArray<string>
  /** The step that failed and why, if one did. */
  readonly failed: { readonly lines: ReadonlyArray<string>; readonly reason: string } | undefined
  /** The changes not attempted after a failure. */
  readonly notApplied: ReadonlyArray<string>
}

const created = (change: ApplySteps.Creation) =>
  `+ ${PlanText.label(change)}${change.action === "replace" ? " (replaced: created again)" : ""}`

/**
 * The lines of a step, one per change (a replace's halves say which half).
 *
 * @since 0.1.0
 * @category formatting
 */
export const lines = (step: ApplySteps.Step): ReadonlyArray<string> => {
  switch (step.step) {
    case "bulk":
      return step.changes.map(created)
    case "create":
      return [created(step.change)]
    case "update":
      return [`~ ${PlanText.label(step.change)}`]
    case "delete":
      return [`- ${PlanText.label(step.change)}${step.change.action === "replace" ? " (replaced: deleted)" : ""}`]
  }
}

class Registry {
  readonly channels: Map<string, string>
  readonly monitors: Map<string, string>
  constructor(plan: Plan.Plan) {
    this.channels = new Map(plan.ids.channels)
    this.monitors = new Map(plan.ids.monitors)
  }
  readonly ids: Requests.Ids = {
    channel: (key) => this.lookup(this.channels, "channel", key),
    monitor: (key) => this.lookup(this.monitors, "monitor", key)
  }
  private lookup(map: ReadonlyMap<string, string>, what: string, key: string): string {
    const id = map.get(key)
    // The file's references were checked and creates run before what names them, so this is a bug, not a refusal.
    if (id === undefined) throw new Error(`apply: no id for the ${what} "${key}" when it is named`)
    return id
  }
}

const deleteOne = (client: Signalman, change: Plan.Delete | Plan.Replace) =>
  ServiceClient.call((signal): PromiseLike<unknown> => {
    switch (change.type) {
      case "variable":
        return client.variables.delete(change.id, { signal })
      case "channel":
        return client.channels.delete(change.id, { signal })
      case "monitor":
        return client.targets.delete(change.id, { signal })
      case "status_page":
        return client.statusPages.delete(change.id, { signal })
      case "maintenance":
        return client.maintenance.delete(change.id, { signal })
    }
  })

// A page's components brought to the file's: those gone removed, the rest added or corrected, then the order.
const syncComponents = (
  client: Signalman,
  pageId: string,
  wanted: ReturnType<typeof Requests.components>,
  existing: ReadonlyArray<Current.ManagedPage["components"][number]>
) =>
  Effect.gen(function* () {
    const wantedIds = new Set(wanted.map((c) => c.target_id.toLowerCase()))
    const have = new Map(existing.map((c) => [c.target_id.toLowerCase(), c] as const))
    for (const component of existing) {
      if (wantedIds.has(component.target_id.toLowerCase())) continue
      yield* ServiceClient.call((signal) =>
        client.statusPages.removeComponent({ id: pageId, target_id: component.target_id }, { signal })
      )
    }
    for (const component of wanted) {
      const found = have.get(component.target_id.toLowerCase())
      if (found === undefined) {
        yield* ServiceClient.call((signal) => client.statusPages.addComponent(pageId, component, { signal }))
      } else if (
        found.public_name !== component.public_name ||
        found.public_description !== component.public_description ||
        found.public_group !== component.public_group
      ) {
        const { target_id, ...fields } = component
        yield* ServiceClient.call((signal) =>
          client.statusPages.updateComponent({ id: pageId, target_id }, fields, { signal })
        )
      }
    }
    const order = [...existing]
      .sort((a, b) => a.sort_order - b.sort_order)
      .map((c) => c.target_id.toLowerCase())
      .filter((id) => wantedIds.has(id))
    const known = new Set(order)
    const after = [...order, ...wanted.map((c) => c.target_id.toLowerCase()).filter((id) => !known.has(id))]
    const target = wanted.map((c) => c.target_id.toLowerCase())
    if (wanted.length > 1 && after.join() !== target.join()) {
      yield* ServiceClient.call((signal) =>
        client.statusPages.reorderComponents(pageId, { target_ids: target }, { signal })
      )
    }
  })

const run = (
  client: Signalman,
  project: string,
  current: Current.Current,
  registry: Registry,
  step: ApplySteps.Step
): Effect.Effect<void, SignalmanError> => {
  const stamp = (key: string) => ({ [ManagedBy.HEADER_KEY]: ManagedBy.format({ project, key }) })
  const ids = registry.ids
  switch (step.step) {
    case "delete":
      return Effect.asVoid(deleteOne(client, step.change))
    case "bulk":
      return Effect.gen(function* () {
        const targets = step.changes.map((change) => Requests.createMonitor(change.desired, ids))
        const idempotencyKey = randomUUID()
        const created = yield* ServiceClient.call((signal) =>
          client.targets.bulk(
            { targets, managed_keys: step.changes.map((change) => change.key) },
            { signal, idempotencyKey, headers: { [ManagedBy.HEADER_KEY]: project } }
          )
        )
        for (const [i, target] of created.data.entries()) registry.monitors.set(step.changes[i]!.key, target.id)
      })
    case "create":
      return create(client, registry, step.change, stamp(step.change.key))
    case "update":
      return update(client, current, registry, step.change, stamp(step.change.key))
  }
}

const create = (
  client: Signalman,
  registry: Registry,
  change: ApplySteps.Creation,
  headers: Record<string, string>
): Effect.Effect<void, SignalmanError> => {
  const ids = registry.ids
  switch (change.type) {
    case "variable":
      return Effect.asVoid(
        ServiceClient.call((signal) =>
          client.variables.create(Requests.createVariable(change.desired), { signal, headers })
        )
      )
    case "channel":
      return Effect.map(
        ServiceClient.call((signal) =>
          client.channels.create(Requests.createChannel(change.desired), { signal, headers })
        ),
        (created) => void registry.channels.set(change.key, created.id)
      )
    case "monitor": {
      const idempotencyKey = randomUUID()
      return Effect.map(
        ServiceClient.call((signal) =>
          client.targets.create(Requests.createMonitor(change.desired, ids), { signal, headers, idempotencyKey })
        ),
        (created) => void registry.monitors.set(change.key, created.id)
      )
    }
    case "status_page":
      return Effect.gen(function* () {
        const page = yield* ServiceClient.call((signal) =>
          client.statusPages.create(Requests.createPage(change.desired), { signal, headers })
        )
        yield* syncComponents(client, page.id, Requests.components(change.desired, ids), [])
      })
    case "maintenance":
      return Effect.asVoid(
        ServiceClient.call((signal) =>
          client.maintenance.create(Requests.createWindow(change.desired, ids), { signal, headers })
        )
      )
  }
}

const update = (
  client: Signalman,
  current: Current.Current,
  registry: Registry,
  change: Plan.Update,
  headers: Record<string, string>
): Effect.Effect<void, SignalmanError> => {
  const ids = registry.ids
  switch (change.type) {
    case "variable":
      return Effect.asVoid(
        ServiceClient.call((signal) =>
          client.variables.rotate(change.id, { value: change.desired.item.value }, { signal, headers })
        )
      )
    case "channel":
      return Effect.asVoid(
        ServiceClient.call((signal) =>
          client.channels.update(change.id, Requests.updateChannel(change.desired, change.fields), {
            signal,
            headers
          })
        )
      )
    case "monitor":
      return Effect.gen(function* () {
        yield* ServiceClient.call((signal) =>
          client.targets.update(change.id, Requests.updateMonitor(change.desired, change.fields, ids), {
            signal,
            headers
          })
        )
        const regions = Requests.monitorRegions(change.desired, change.fields)
        if (regions !== undefined) {
          yield* ServiceClient.call((signal) => client.targets.setRegions(change.id, { regions }, { signal }))
        }
      })
    case "status_page":
      return Effect.gen(function* () {
        yield* ServiceClient.call((signal) =>
          client.statusPages.update(change.id, Requests.updatePage(change.desired, change.fields), {
            signal,
            headers
          })
        )
        if (Requests.changedFields(change.fields).has("components")) {
          const existing = current.status_pages.find((p) => p.page.id === change.id)?.components ?? []
          yield* syncComponents(client, change.id, Requests.components(change.desired, ids), existing)
        }
      })
    case "maintenance":
      return Effect.asVoid(
        ServiceClient.call((signal) =>
          client.maintenance.update(change.id, Requests.updateWindow(change.desired, change.fields, ids), {
            signal,
            headers
          })
        )
      )
  }
}

/**
 * Why a step failed, in one line: the service's message, code and field; a bulk create's refusal names
 * `targets[i]`, so it also says which monitor of the file that is.
 *
 * @since 0.1.0
 * @category formatting
 */
export const reason = (step: ApplySteps.Step, error: SignalmanError): string => {
  const index = step.step === "bulk" ? /^(?:targets|managed_keys)\[(\d+)\]/.exec(error.field ?? "")?.[1] : undefined
  const change = index === undefined ? undefined : step.step === "bulk" ? step.changes[Number(index)] : undefined
  const described = ServiceClient.describe(error)
  return change === undefined ? described : `${described}: monitor ${change.key}`
}

/**
 * Applies the plan, telling `progress` each step's lines as it completes.
 *
 * @since 0.1.0
 * @category applying
 */
export const apply = (options: {
  readonly client: Signalman
  readonly plan: Plan.Plan
  readonly current: Current.Current
  readonly progress: (lines: ReadonlyArray<string>) => Effect.Effect<void>
}): Effect.Effect<Report> =>
  Effect.gen(function* () {
    const registry = new Registry(options.plan)
    const steps = ApplySteps.steps(options.plan)
    const applied: Array<string> = []
    for (const [i, step] of steps.entries()) {
      const outcome = yield* Effect.either(run(options.client, options.plan.project, options.current, registry, step))
      if (Either.isLeft(outcome)) {
        return {
          applied,
          failed: { lines: lines(step), reason: reason(step, outcome.left) },
          notApplied: steps.slice(i + 1).flatMap(lines)
        }
      }
      applied.push(...lines(step))
      yield* options.progress(lines(step))
    }
    return { applied, failed: undefined, notApplied: [] }
  })

/**
 * The report as text: what was applied, and after a failure what failed, why, and what was not applied.
 *
 * @since 0.1.0
 * @category formatting
 */
export const render = (report: Report, plan: Plan.Plan): string => {
  const indent = (items: ReadonlyArray<string>) => items.map((line) => `  ${line}`)
  if (report.failed === undefined) {
    const s = Plan.summary(plan)
    return `Applied: ${s.create} created, ${s.update} updated, ${s.replace} replaced, ${s.delete} deleted.`
  }
  return [
    `Applied (${report.applied.length}):`,
    ...indent(report.applied),
    `Failed: ${report.failed.lines.join(", ")}: ${report.failed.reason}`,
    `Not applied (${report.failed.lines.length + report.notApplied.length}):`,
    ...indent([...report.failed.lines, ...report.notApplied])
  ].join("\n")
}
