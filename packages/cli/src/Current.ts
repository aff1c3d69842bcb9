/**
 * What the service holds, as the CLI reads it for a plan: every resource of the org as its list endpoint answers
 * it, each with `managed_by` (a status page with its components). The diff reads only those the file's project
 * manages; the rest are here so that nothing about them is guessed.
 *
 * @since 0.1.0
 */
import * as Maintenance from "@signalman/core/api/Maintenance"
import * as Channel from "@signalman/core/Channel"
import * as ManagedBy from "@signalman/core/ManagedBy"
import * as StatusPage from "@signalman/core/StatusPage"
import * as Target from "@signalman/core/Target"
import * as Variable from "@signalman/core/Variable"
import * as Schema from "effect/Schema"

// Required, not defaulted: a service that does not answer the field cannot say what a project manages, and reading
// its absence as "nobody" would plan every resource of the file as new on every run.
const managed = { managed_by: ManagedBy.Field }

/**
 * @since 0.1.0
 * @category schemas
 */
export const ManagedVariable = Schema.Struct({ ...Variable.Variable.fields, ...managed })

/**
 * @since 0.1.0
 * @category models
 */
export type ManagedVariable = typeof ManagedVariable.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const ManagedChannel = Schema.Struct({ ...Channel.Channel.fields, ...managed })

/**
 * @since 0.1.0
 * @category models
 */
export type ManagedChannel = typeof ManagedChannel.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const ManagedTarget = Schema.Struct({ ...Target.Target.fields, ...managed })

/**
 * @since 0.1.0
 * @category models
 */
export type ManagedTarget = typeof ManagedTarget.Type

/**
 * A status page and its components (`GET /status-pages/{id}/components`), in their order.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ManagedPage = Schema.Struct({
  page: Schema.Struct({ ...StatusPage.StatusPage.fields, ...managed }),
  components: Schema.Array(StatusPage.Component)
})

/**
 * @since 0.1.0
 * @category models
 */
export type ManagedPage = typeof ManagedPage.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const ManagedWindow = Schema.Struct({ ...Maintenance.MaintenanceWindowResource.fields, ...managed })

/**
 * @since 0.1.0
 * @category models
 */
export type ManagedWindow = typeof ManagedWindow.Type

/**
 * The org's resources.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Current = Schema.Struct({
  variables: Schema.Array(ManagedVariable),
  channels: Schema.Array(ManagedChannel),
  targets: Schema.Array(ManagedTarget),
  status_pages: Schema.Array(ManagedPage),
  maintenance: Schema.Array(ManagedWindow)
})

/**
 * @since 0.1.0
 * @category models
 */
export type Current = typeof Current.Type
