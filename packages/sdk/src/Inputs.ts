/**
 * The body and query schema of every endpoint that takes one, by group and endpoint name: types only, nothing of it
 * reaches the bundle.
 *
 * The contract's endpoint types keep only the decoded (`Type`) side of their schemas, and that side is the wrong
 * one for a caller: fields with defaults are required in it, and dates and numbers are already parsed. A caller
 * writes the encoded side, the JSON the service documents. So each endpoint's schema is named here once, and the
 * compiler checks the list against the contract (`Check` below): a schema whose `Type` is not the endpoint's, an
 * endpoint with a body or query that is missing, or an entry for one without, each fail the build with the
 * endpoint's name.
 *
 * @since 0.2.0
 */
import type * as HttpApi from "@effect/platform/HttpApi"
import type * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import type * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import type { SignalmanApi } from "@signalman/core/api/Api"
import type { CheckoutRequest, PlanChangeRequest } from "@signalman/core/api/Billing"
import type { ListChannels } from "@signalman/core/api/Channels"
import type { PickHolds } from "@signalman/core/api/Holds"
import type {
  DeclareIncident,
  ListIncidentPeriods,
  ListIncidents,
  MetricsQuery,
  PutPostmortem
} from "@signalman/core/api/Incidents"
import type {
  CreateMaintenanceWindow,
  ListMaintenanceWindows,
  PatchMaintenanceWindow,
  PostMaintenanceUpdate
} from "@signalman/core/api/Maintenance"
import type { DefaultEscalationPolicy, OnCallQuery, ShiftsQuery } from "@signalman/core/api/OnCall"
import type { HistoryQuery, ListQuery, PageQuery } from "@signalman/core/api/Public"
import type { RangeOnlyQuery, RangeQuery, ResultsQuery } from "@signalman/core/api/Results"
import type { RemoveSignInMethodQuery } from "@signalman/core/api/SignInMethods"
import type { LogoUpload } from "@signalman/core/api/StatusPages"
import type { SubscribeQuery } from "@signalman/core/api/Subscriptions"
import type { BulkCreate, ListTargets, SetRegions, TestCheck } from "@signalman/core/api/Targets"
import type { ListVariables } from "@signalman/core/api/Variables"
import type { BulkAction } from "@signalman/core/BulkAction"
import type { CreateChannel, PatchChannel } from "@signalman/core/Channel"
import type { RotateRequest } from "@signalman/core/heartbeat/Rotation"
import type {
  CreateApiToken,
  CreateInvitation,
  CreateOrg,
  InvitationToken,
  MagicLinkCode,
  MagicLinkRequest,
  RenameApiToken,
  SupportRequest
} from "@signalman/core/Identity"
import type { PatchIncident, PostIncidentUpdate } from "@signalman/core/IncidentNarration"
import type { SetStateRequest } from "@signalman/core/ManualState"
import type { CreateMonitorShare } from "@signalman/core/MonitorShare"
import type { EscalationPolicyCreate, EscalationPolicyPatch } from "@signalman/core/oncall/EscalationPolicy"
import type { ScheduleCreate, SchedulePatch } from "@signalman/core/oncall/Schedule"
import type { Subscribe } from "@signalman/core/PageSubscription"
import type * as Pagination from "@signalman/core/Pagination"
import type { LoginFinish, LoginStart, RegisterFinish, RegisterStart } from "@signalman/core/Passkey"
import type {
  AddComponent,
  CreateStatusPage,
  PatchComponent,
  PatchStatusPage,
  ReorderComponents
} from "@signalman/core/StatusPage"
import type { CreateTarget, PatchTarget } from "@signalman/core/Target"
import type { DuplicateTarget } from "@signalman/core/TargetCopy"
import type { CreateVariable, RotateVariable } from "@signalman/core/Variable"
import type * as Schema from "effect/Schema"
import type { ClientGroup } from "./Layout.js"

type Paged = Schema.Struct<typeof Pagination.query>
type PageOnly = Schema.Struct<typeof PageQuery>
type ListTags = Schema.Struct<typeof Pagination.query & { q: (typeof ListTargets.fields)["q"] }>

/**
 * A multipart body: its parts by name. A part's file is any `Blob` (a `File` keeps its name).
 *
 * @since 0.2.0
 * @category models
 */
export interface MultipartInput<Parts extends string> {
  /** The parts by name, for example `{ file: new Blob([bytes], { type: "image/png" }) }`. */
  readonly parts: { readonly [K in Parts]: Blob }
}

/**
 * The JSON and multipart bodies, by group and endpoint.
 *
 * @since 0.2.0
 * @category models
 */
export interface Bodies {
  /** Signing in by magic link or passkey, and adding a passkey. */
  readonly auth: {
    readonly requestMagicLink: typeof MagicLinkRequest
    readonly redeemMagicLinkCode: typeof MagicLinkCode
    readonly passkeyLoginStart: typeof LoginStart
    readonly passkeyLoginFinish: typeof LoginFinish
    readonly passkeyRegisterStart: typeof RegisterStart
    readonly passkeyRegisterFinish: typeof RegisterFinish
  }
  /** The caller's API tokens. */
  readonly me: { readonly createToken: typeof CreateApiToken; readonly renameToken: typeof RenameApiToken }
  /** The account's billing: buying a plan and moving it. */
  readonly billing: { readonly checkout: typeof CheckoutRequest; readonly changePlan: typeof PlanChangeRequest }
  /** Orgs, invitations and the support form. */
  readonly orgs: {
    readonly create: typeof CreateOrg
    readonly invite: typeof CreateInvitation
    readonly acceptInvitation: typeof InvitationToken
    readonly support: typeof SupportRequest
  }
  /** Declining an invitation, no account needed (on a client: `orgs.declineInvitation`). */
  readonly invitationsPublic: { readonly decline: typeof InvitationToken }
  /** Monitors: one, in bulk, copies, bulk changes, regions, a one-off test. */
  readonly targets: {
    readonly create: typeof CreateTarget
    readonly bulk: typeof BulkCreate
    readonly duplicate: typeof DuplicateTarget
    readonly bulkAction: typeof BulkAction
    readonly update: typeof PatchTarget
    readonly setRegions: typeof SetRegions
    readonly test: typeof TestCheck
  }
  /** Rotating a ping URL; a manual monitor's state. */
  readonly heartbeats: { readonly rotate: typeof RotateRequest; readonly setState: typeof SetStateRequest }
  /** A monitor's share links. */
  readonly shares: { readonly create: typeof CreateMonitorShare }
  /** Subscribing to a status page by email. */
  readonly subscriptions: { readonly subscribe: typeof Subscribe }
  /** Org variables. */
  readonly variables: { readonly create: typeof CreateVariable; readonly rotate: typeof RotateVariable }
  /** The owner's pick of what the plan keeps. */
  readonly holds: { readonly pick: typeof PickHolds }
  /** Notification channels. */
  readonly channels: { readonly create: typeof CreateChannel; readonly update: typeof PatchChannel }
  /** Maintenance windows and their updates. */
  readonly maintenance: {
    readonly create: typeof CreateMaintenanceWindow
    readonly update: typeof PatchMaintenanceWindow
    readonly postUpdate: typeof PostMaintenanceUpdate
  }
  /** Declared incidents, narration, updates and the postmortem. */
  readonly incidents: {
    readonly declare: typeof DeclareIncident
    readonly update: typeof PatchIncident
    readonly postUpdate: typeof PostIncidentUpdate
    readonly putPostmortem: typeof PutPostmortem
  }
  /** On-call schedules, escalation policies and the org's default policy. */
  readonly oncall: {
    readonly createSchedule: typeof ScheduleCreate
    readonly updateSchedule: typeof SchedulePatch
    readonly createPolicy: typeof EscalationPolicyCreate
    readonly updatePolicy: typeof EscalationPolicyPatch
    readonly setDefaultPolicy: typeof DefaultEscalationPolicy
  }
  /** Status pages, their components and logo. */
  readonly statusPages: {
    readonly create: typeof CreateStatusPage
    readonly update: typeof PatchStatusPage
    readonly addComponent: typeof AddComponent
    readonly updateComponent: typeof PatchComponent
    readonly reorderComponents: typeof ReorderComponents
    readonly uploadLogo: MultipartBody<"file", typeof LogoUpload>
  }
}

/**
 * The query strings, by group and endpoint.
 *
 * @since 0.2.0
 * @category models
 */
export interface Queries {
  /** The monitor list, tags and a monitor's incident periods. */
  readonly targets: {
    readonly list: typeof ListTargets
    readonly tags: ListTags
    readonly incidents: typeof ListIncidentPeriods
  }
  /** A monitor's results, latency, uptime and flow steps over a range (on a client: under `targets`). */
  readonly results: {
    readonly results: typeof ResultsQuery
    readonly latency: typeof RangeQuery
    readonly latencyByRegion: typeof RangeOnlyQuery
    readonly uptime: typeof RangeQuery
    readonly flowSteps: typeof RangeQuery
  }
  /** The page subscribed to. */
  readonly subscriptions: { readonly subscribe: typeof SubscribeQuery }
  /** The variable list. */
  readonly variables: { readonly list: typeof ListVariables }
  /** Which identity to remove when one provider is linked twice. */
  readonly signInMethods: { readonly remove: typeof RemoveSignInMethodQuery }
  /** The channel list. */
  readonly channels: { readonly list: typeof ListChannels }
  /** The window list. */
  readonly maintenance: { readonly list: typeof ListMaintenanceWindows }
  /** The incident list and the response metrics. */
  readonly incidents: { readonly list: typeof ListIncidents; readonly metrics: typeof MetricsQuery }
  /** The on-call lists, who is on call at an instant, and the shifts of a window. */
  readonly oncall: {
    readonly listSchedules: Paged
    readonly listPolicies: Paged
    readonly onCall: typeof OnCallQuery
    readonly shifts: typeof ShiftsQuery
  }
  /** The page list and a private page's viewers. */
  readonly statusPages: { readonly list: Paged; readonly listViewers: Paged }
  /** The public status endpoints: the page by slug, and paging. */
  readonly public: {
    readonly status: PageOnly
    readonly history: typeof HistoryQuery
    readonly incidents: typeof ListQuery
    readonly incident: PageOnly
    readonly maintenance: PageOnly
    readonly pastMaintenance: typeof ListQuery
  }
}

/**
 * A multipart body's entry: the parts a caller gives, and the contract's schema `S` (whose decoded form the check
 * compares).
 *
 * @since 0.2.0
 * @category models
 */
export interface MultipartBody<Parts extends string, S extends Schema.Schema.Any> {
  /** What the caller passes. */
  readonly Encoded: MultipartInput<Parts>
  /** What the contract's payload decodes to on the server. */
  readonly Type: Schema.Schema.Type<S>
}

// ---------------------------------------------------------------------------------------------------------------
// The contract, as types.

/**
 * Every group of the contract.
 *
 * @since 0.2.0
 * @category models
 */
export type Groups = typeof SignalmanApi extends HttpApi.HttpApi<infer _Id, infer G, infer _E, infer _R> ? G : never

/**
 * A group's name.
 *
 * @since 0.2.0
 * @category models
 */
export type GroupName = HttpApiGroup.HttpApiGroup.Name<Groups>

/**
 * The endpoints of group `G`.
 *
 * @since 0.2.0
 * @category models
 */
export type EndpointsOf<G extends GroupName> = HttpApiGroup.HttpApiGroup.EndpointsWithName<Groups, G>

/**
 * The endpoint names of group `G`.
 *
 * @since 0.2.0
 * @category models
 */
export type EndpointName<G extends GroupName> = HttpApiEndpoint.HttpApiEndpoint.Name<EndpointsOf<G>>

/**
 * Endpoint `E` of group `G`.
 *
 * @since 0.2.0
 * @category models
 */
export type Endpoint<G extends GroupName, E extends EndpointName<G>> = HttpApiEndpoint.HttpApiEndpoint.WithName<
  EndpointsOf<G>,
  E
>

/**
 * The parts of an endpoint's type: the decoded path, query, body and success.
 *
 * @since 0.2.0
 * @category models
 */
export type Parts<X> =
  X extends HttpApiEndpoint.HttpApiEndpoint<
    infer _Name,
    infer _Method,
    infer Path,
    infer UrlParams,
    infer Payload,
    infer _Headers,
    infer Success,
    infer _Error,
    infer _R,
    infer _RE
  >
    ? { readonly path: Path; readonly query: UrlParams; readonly body: Payload; readonly success: Success }
    : never

type Entry<Table, G, E> = G extends keyof Table ? (E extends keyof Table[G] ? Table[G][E] : never) : never

/**
 * The schema named for the body of `G.E`, or `never`.
 *
 * @since 0.2.0
 * @category models
 */
export type BodySchema<G extends GroupName, E extends EndpointName<G>> = Entry<Bodies, G, E>

/**
 * The schema named for the query of `G.E`, or `never`.
 *
 * @since 0.2.0
 * @category models
 */
export type QuerySchema<G extends GroupName, E extends EndpointName<G>> = Entry<Queries, G, E>

// ---------------------------------------------------------------------------------------------------------------
// The check.

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
type TypeOf<S> = S extends { readonly Type: infer T } ? T : never

type Problem<G extends GroupName, E extends EndpointName<G>> =
  Same<TypeOf<BodySchema<G, E>>, Parts<Endpoint<G, E>>["body"]> extends false
    ? `${G}.${E}: the body schema named in Inputs.ts is not the contract's`
    : Same<TypeOf<QuerySchema<G, E>>, Parts<Endpoint<G, E>>["query"]> extends false
      ? `${G}.${E}: the query schema named in Inputs.ts is not the contract's`
      : never

type Problems = { [G in ClientGroup]: { [E in EndpointName<G>]: Problem<G, E> }[EndpointName<G>] }[ClientGroup]

type Stray<Table> = {
  [G in keyof Table]: G extends GroupName
    ? {
        [E in keyof Table[G]]: E extends EndpointName<G> ? never : `${G}.${E & string}: no such endpoint`
      }[keyof Table[G]]
    : `${G & string}: no such group`
}[keyof Table]

/**
 * Empty when every entry above matches the contract; otherwise each mismatch, by endpoint, in the compile error of
 * the line below.
 *
 * @since 0.2.0
 * @category models
 */
export type Check = Problems | Stray<Bodies> | Stray<Queries>

// A mismatch makes this a missing property named after it.
const inputsMatchTheContract: Record<Check, "see Inputs.ts"> = {}
void inputsMatchTheContract
