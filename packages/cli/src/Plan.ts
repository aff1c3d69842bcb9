/**
 * A plan: what applying the config file would change, in the order it would be applied. Creates, in-place updates
 * (with each changed field), replaces (delete then create, for a change the API cannot make in place) and deletes
 * (resources the project manages that the file no longer has). Made by `Diff.diff`, printed by `PlanText` and
 * `PlanJson`, carried out by `apply`.
 *
 * @since 0.1.0
 */
import type * as Option from "effect/Option"
import type * as Desired from "./Desired.js"

/**
 * The kinds of resource a config manages, in the order they are created (each may name the ones before it).
 *
 * @since 0.1.0
 * @category models
 */
export const resourceTypes = ["variable", "channel", "monitor", "status_page", "maintenance"] as const

/**
 * @since 0.1.0
 * @category models
 */
export type ResourceType = (typeof resourceTypes)[number]

/**
 * What a secret reads as in a plan: its value is never shown, whether it comes from the file or the service.
 *
 * @since 0.1.0
 * @category constants
 */
export const SECRET = "(secret)"

/**
 * One field's change, by its path under the resource (`check.url`, `config.headers.Authorization`). `old` is none on
 * a create or for a field the service does not have; `new` is none for a field the file takes away. Values are JSON;
 * references are shown by key, a secret as {@link SECRET}.
 *
 * @since 0.1.0
 * @category models
 */
export interface FieldChange {
  readonly field: string
  readonly old: Option.Option<unknown>
  readonly new: Option.Option<unknown>
  readonly secret: boolean
}

/**
 * The resource a create, update or replace writes, as the file describes it.
 *
 * @since 0.1.0
 * @category models
 */
export type Write =
  | { readonly type: "variable"; readonly desired: Desired.DesiredVariable }
  | { readonly type: "channel"; readonly desired: Desired.DesiredChannel }
  | { readonly type: "monitor"; readonly desired: Desired.DesiredMonitor }
  | { readonly type: "status_page"; readonly desired: Desired.DesiredPage }
  | { readonly type: "maintenance"; readonly desired: Desired.DesiredWindow }

/**
 * A resource the file has and the service does not: every field the file sets.
 *
 * @since 0.1.0
 * @category models
 */
export type Create = Write & {
  readonly action: "create"
  readonly key: string
  readonly name: string
  readonly fields: ReadonlyArray<FieldChange>
}

/**
 * A resource both have, changed in place: its id (and history) stay.
 *
 * @since 0.1.0
 * @category models
 */
export type Update = Write & {
  readonly action: "update"
  readonly key: string
  readonly id: string
  readonly name: string
  readonly fields: ReadonlyArray<FieldChange>
}

/**
 * A resource whose change the API cannot make in place (a monitor's `check.type`, a channel's `kind`, a variable's
 * `is_secret`): deleted, then created again, with a new id.
 *
 * @since 0.1.0
 * @category models
 */
export type Replace = Write & {
  readonly action: "replace"
  readonly key: string
  readonly id: string
  readonly name: string
  /** The field that forces the replacement. */
  readonly reason: string
  readonly fields: ReadonlyArray<FieldChange>
}

/**
 * A resource the project manages that the file no longer has.
 *
 * @since 0.1.0
 * @category models
 */
export interface Delete {
  readonly action: "delete"
  readonly type: ResourceType
  readonly key: string
  readonly id: string
  readonly name: string
}

/**
 * @since 0.1.0
 * @category models
 */
export type Change = Create | Update | Replace | Delete

/**
 * The plan: its changes in the order they are applied (creates, replaces and updates by resource type, variables
 * first; then deletes, maintenance first), how many managed resources are already as the file says, and the ids of
 * the managed resources that stay, by key, for resolving the file's references when applying.
 *
 * @since 0.1.0
 * @category models
 */
export interface Plan {
  readonly project: string
  readonly changes: ReadonlyArray<Change>
  readonly unchanged: number
  readonly ids: {
    readonly channels: ReadonlyMap<string, string>
    readonly monitors: ReadonlyMap<string, string>
  }
}

/**
 * How many changes of each action.
 *
 * @since 0.1.0
 * @category models
 */
export interface Summary {
  readonly create: number
  readonly update: number
  readonly replace: number
  readonly delete: number
  readonly unchanged: number
}

/**
 * @since 0.1.0
 * @category summaries
 */
export const summary = (plan: Plan): Summary => {
  const count = (action: Change["action"]) => plan.changes.filter((change) => change.action === action).length
  return {
    create: count("create"),
    update: count("update"),
    replace: count("replace"),
    delete: count("delete"),
    unchanged: plan.unchanged
  }
}

/**
 * Whether applying the plan would write anything.
 *
 * @since 0.1.0
 * @category summaries
 */
export const hasChanges = (plan: Plan): boolean => plan.changes.length > 0
