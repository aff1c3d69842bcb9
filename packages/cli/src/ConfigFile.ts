/**
 * The config file (decisions.md, "Monitoring as code"): a `project` and five lists, `monitors`, `channels`,
 * `variables`, `status_pages` and `maintenance`. Every item is the API's own create body with a `key` beside it;
 * references between items go by key instead of id (a monitor's `alerts`, a page's `components[].monitor`, a
 * window's `components`).
 *
 * The item schemas are built from core's request bodies, so a field, its type and its range are the API's and
 * change with it. Unknown keys are errors, as the API's rule (decode with {@link parseOptions}).
 *
 * @since 0.1.0
 */
import * as Maintenance from "@signalman/core/api/Maintenance"
import * as Channel from "@signalman/core/Channel"
import * as ManagedBy from "@signalman/core/ManagedBy"
import * as StatusPage from "@signalman/core/StatusPage"
import * as Target from "@signalman/core/Target"
import * as Variable from "@signalman/core/Variable"
import * as Variables from "@signalman/core/Variables"
import * as Schema from "effect/Schema"
import type * as AST from "effect/SchemaAST"
import * as Struct from "effect/Struct"

/**
 * How the file is decoded: an unknown key anywhere is an error, and every problem is reported, not the first.
 *
 * @since 0.1.0
 * @category decoding
 */
export const parseOptions: AST.ParseOptions = { onExcessProperty: "error", errors: "all" }

const strict = <Fields extends Schema.Struct.Fields>(fields: Fields) =>
  Schema.Struct(fields).annotations({ parseOptions })

/**
 * The list fields of the file, in the order the service needs them created.
 *
 * @since 0.1.0
 * @category models
 */
export const lists = ["variables", "channels", "monitors", "status_pages", "maintenance"] as const

/**
 * @since 0.1.0
 * @category models
 */
export type ListName = (typeof lists)[number]

/**
 * A monitor: `POST /targets` with a `key`, and `alerts` as channel keys.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Monitor = strict({
  key: ManagedBy.Key,
  ...Struct.omit(Target.CreateTarget.fields, "alerts"),
  alerts: Schema.optionalWith(Schema.Array(ManagedBy.Key).pipe(Schema.maxItems(50)), { exact: true })
}).annotations({ identifier: "ConfigMonitor" })

/**
 * @since 0.1.0
 * @category models
 */
export type Monitor = typeof Monitor.Type

/**
 * A channel: `POST /channels` (one shape per kind) with a `key`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const NotificationChannel = Schema.extend(
  Channel.CreateChannel,
  Schema.Struct({ key: ManagedBy.Key })
).annotations({ identifier: "ConfigChannel", parseOptions })

/**
 * @since 0.1.0
 * @category models
 */
export type NotificationChannel = typeof NotificationChannel.Type

/**
 * A variable: `POST /variables`. Its `key` is both the variable's key (`{{key}}` in checks, the API's pattern) and
 * its key in the file.
 *
 * @since 0.1.0
 * @category schemas
 */
export const OrgVariable = strict({
  ...Variable.CreateVariable.fields,
  key: Schema.String.pipe(
    Schema.filter(
      (s) => Variables.KEY_PATTERN.test(s) || "must be a lower-case letter, then up to 62 of a-z, 0-9 and _"
    )
  )
}).annotations({ identifier: "ConfigVariable" })

/**
 * @since 0.1.0
 * @category models
 */
export type OrgVariable = typeof OrgVariable.Type

/**
 * A component of a page: the monitor's key and the public fields of `POST /status-pages/{id}/components`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PageComponent = strict({
  monitor: ManagedBy.Key,
  ...Struct.omit(StatusPage.AddComponent.fields, "target_id")
}).annotations({ identifier: "ConfigPageComponent" })

/**
 * @since 0.1.0
 * @category models
 */
export type PageComponent = typeof PageComponent.Type

/**
 * A status page: `POST /status-pages` with a `key` and its components in their order.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Page = strict({
  key: ManagedBy.Key,
  ...StatusPage.CreateStatusPage.fields,
  components: Schema.optionalWith(Schema.Array(PageComponent), { default: () => [] })
}).annotations({ identifier: "ConfigStatusPage" })

/**
 * @since 0.1.0
 * @category models
 */
export type Page = typeof Page.Type

/**
 * A maintenance window: `POST /maintenance` with a `key`, and `components` as monitor keys.
 *
 * @since 0.1.0
 * @category schemas
 */
export const MaintenanceWindow = strict({
  key: ManagedBy.Key,
  ...Struct.omit(Maintenance.CreateMaintenanceWindow.fields, "components"),
  components: Schema.optionalWith(Schema.Array(ManagedBy.Key).pipe(Schema.maxItems(Maintenance.MAX_COMPONENTS)), {
    default: () => []
  })
}).annotations({ identifier: "ConfigMaintenanceWindow" })

/**
 * @since 0.1.0
 * @category models
 */
export type MaintenanceWindow = typeof MaintenanceWindow.Type

const list = <S extends Schema.Schema.Any>(item: S) => Schema.optionalWith(Schema.Array(item), { default: () => [] })

/**
 * The whole file.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Config = strict({
  project: ManagedBy.Project,
  variables: list(OrgVariable),
  channels: list(NotificationChannel),
  monitors: list(Monitor),
  status_pages: list(Page),
  maintenance: list(MaintenanceWindow)
}).annotations({ identifier: "Config" })

/**
 * The file decoded: defaults of the bodies filled, timestamps as instants.
 *
 * @since 0.1.0
 * @category models
 */
export type Config = typeof Config.Type

/**
 * The item schema of each list, for decoding item by item (so one bad item does not hide the others' problems).
 *
 * @since 0.1.0
 * @category schemas
 */
export const items = {
  variables: OrgVariable,
  channels: NotificationChannel,
  monitors: Monitor,
  status_pages: Page,
  maintenance: MaintenanceWindow
} as const

/**
 * The top level alone, every list left undecoded: the first pass of a decode item by item.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Outline = strict({
  project: ManagedBy.Project,
  variables: list(Schema.Unknown),
  channels: list(Schema.Unknown),
  monitors: list(Schema.Unknown),
  status_pages: list(Schema.Unknown),
  maintenance: list(Schema.Unknown)
})

/**
 * @since 0.1.0
 * @category models
 */
export type Outline = typeof Outline.Type

/**
 * A page's `access` as written (the API decodes it by its own rules, `StatusPage.decodeAccess`, so its schema is
 * open; this type is what an editor completes in `signalman.config.ts`).
 *
 * @since 0.1.0
 * @category models
 */
export interface AccessInput {
  readonly protected: boolean
  readonly email_code?: { readonly enabled?: boolean; readonly allow?: ReadonlyArray<string> } | null
  readonly session_days?: (typeof StatusPage.SESSION_DAYS)[number] | null
  readonly recheck_days?: (typeof StatusPage.RECHECK_DAYS)[number] | null
  readonly password?: { readonly enabled?: boolean; readonly value?: string } | null
}

type PageInput = Omit<typeof Page.Encoded, "access"> & { readonly access?: AccessInput | null }

/**
 * The file as written: what `defineConfig` takes, every field typed from the schemas.
 *
 * @since 0.1.0
 * @category models
 */
export type ConfigInput = Omit<typeof Config.Encoded, "status_pages"> & {
  readonly status_pages?: ReadonlyArray<PageInput>
}
