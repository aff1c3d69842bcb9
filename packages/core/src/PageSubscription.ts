/**
 * Email subscribers of a status page: double opt-in, one-click unsubscribe, and the mails they get when an incident
 * or a maintenance window touching the page moves (service-api.md "Events": incident and maintenance updates are
 * sent to subscribers). The rules and the text of the mails are pure; the server stores, throttles and delivers.
 *
 * @since 0.2.0
 */
import * as Schema from "effect/Schema"
import * as RequestBody from "./RequestBody.js"

/**
 * A confirmation mail goes to one address of one page at most once in this many seconds, however often it is asked.
 *
 * @since 0.2.0
 * @category constants
 */
export const CONFIRMATION_INTERVAL_SECS = 600

/**
 * How long a confirmation link works.
 *
 * @since 0.2.0
 * @category constants
 */
export const CONFIRMATION_TTL_SECS = 48 * 3600

/**
 * `POST /api/public/v1/subscriptions?page=<slug>`.
 *
 * @since 0.2.0
 * @category requests
 */
export const Subscribe = RequestBody.Struct({ email: Schema.String }).annotations({ identifier: "Subscribe" })

/**
 * @since 0.2.0
 * @category requests
 */
export type Subscribe = typeof Subscribe.Type

/**
 * The one answer to a subscription request, whatever the address (no enumeration).
 *
 * @since 0.2.0
 * @category models
 */
export class SubscriptionAccepted extends Schema.Class<SubscriptionAccepted>("SubscriptionAccepted")({
  message: Schema.String
}) {}

/**
 * The message of every accepted subscription request.
 *
 * @since 0.2.0
 * @category constants
 */
export const ACCEPTED_MESSAGE =
  "If this address can subscribe, a confirmation link is on its way. Follow it to start receiving updates."

/**
 * An address as stored and compared: trimmed and lower-cased.
 *
 * @since 0.2.0
 * @category rules
 */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase()

/**
 * Deliberately loose (the confirmation mail proves the address): one `@`, something on each side, a dot in the
 * domain, no spaces, at most 254 characters.
 *
 * @since 0.2.0
 * @category rules
 */
export const isPlausibleEmail = (email: string): boolean =>
  email.length <= 254 && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)

const Impact = Schema.Literal("degraded", "partial_outage", "major_outage")

/**
 * What a subscriber is told about: an incident that opened, got an update or resolved; a maintenance window that was
 * scheduled, started, got an update or completed. Incidents carry only their public words: `publicTitle` null
 * makes the mail name the impact, never the internal title.
 *
 * @since 0.2.0
 * @category models
 */
export const Event = Schema.Union(
  Schema.TaggedStruct("Incident", {
    kind: Schema.Literal("opened", "update", "resolved"),
    publicTitle: Schema.NullOr(Schema.String),
    publicDescription: Schema.NullOr(Schema.String),
    impact: Impact,
    phase: Schema.optional(Schema.String),
    message: Schema.optional(Schema.String)
  }),
  Schema.TaggedStruct("Maintenance", {
    kind: Schema.Literal("scheduled", "started", "update", "completed"),
    title: Schema.String,
    description: Schema.String,
    startsAt: Schema.String,
    endsAt: Schema.String,
    message: Schema.optional(Schema.String)
  })
)

/**
 * @since 0.2.0
 * @category models
 */
export type Event = typeof Event.Type

/**
 * A page event as the outbox keeps it until it is mailed: the event, the page's name and address, and the page's
 * names for the components it touches.
 *
 * @since 0.2.0
 * @category models
 */
export const PageNotice = Schema.Struct({
  event: Event,
  page: Schema.Struct({ name: Schema.String, slug: Schema.String, custom_domain: Schema.NullOr(Schema.String) }),
  components: Schema.Array(Schema.String)
})

/**
 * @since 0.2.0
 * @category models
 */
export type PageNotice = typeof PageNotice.Type

/**
 * A page's public address: its custom domain when it has one, else `<origin>/p/<slug>`.
 *
 * @since 0.2.0
 * @category rendering
 */
export const pageUrl = (origin: string, page: PageNotice["page"]): string =>
  page.custom_domain === null ? `${origin}/p/${page.slug}` : `https://${page.custom_domain}`

/**
 * Where the mail points and what the page calls the monitors involved.
 *
 * @since 0.2.0
 * @category models
 */
export interface PageContext {
  readonly pageName: string
  readonly pageUrl: string
  /** The components the event touches, by their public names on this page. */
  readonly components: ReadonlyArray<string>
}

const impactNames = {
  degraded: "Degraded performance",
  partial_outage: "Partial outage",
  major_outage: "Outage"
} as const

const phaseNames: Record<string, string> = {
  investigating: "Investigating",
  identified: "Identified",
  monitoring: "Monitoring",
  resolved: "Resolved",
  postmortem: "Postmortem"
}

/**
 * The subject and body of the mail for an event on a page (without the unsubscribe footer, added per subscriber).
 * Only public words: an incident's public title and description (else its impact), a window's title and
 * description, and the page's names for its components.
 *
 * @since 0.2.0
 * @category rendering
 */
export const render = (event: Event, page: PageContext): { readonly subject: string; readonly body: string } => {
  const lines: Array<string> = []
  let headline: string
  if (event._tag === "Incident") {
    const title = event.publicTitle ?? impactNames[event.impact]
    headline =
      event.kind === "opened"
        ? `New incident: ${title}`
        : event.kind === "resolved"
          ? `Resolved: ${title}`
          : `${phaseNames[event.phase ?? ""] ?? "Update"}: ${title}`
    if (event.kind === "update" && event.message !== undefined) lines.push(event.message)
    if (event.kind === "opened" && event.publicDescription !== null) lines.push(event.publicDescription)
    if (event.kind === "resolved") lines.push("This incident is resolved.")
  } else {
    const when = `${event.startsAt} to ${event.endsAt} (UTC)`
    headline =
      event.kind === "scheduled"
        ? `Scheduled maintenance: ${event.title}`
        : event.kind === "started"
          ? `Maintenance in progress: ${event.title}`
          : event.kind === "completed"
            ? `Maintenance completed: ${event.title}`
            : `Maintenance update: ${event.title}`
    if (event.kind === "update" && event.message !== undefined) lines.push(event.message)
    if (event.kind === "scheduled" && event.description !== "") lines.push(event.description)
    if (event.kind !== "completed") lines.push(`When: ${when}`)
  }
  if (page.components.length > 0) lines.push(`Affected: ${page.components.join(", ")}`)
  lines.push(`Status page: ${page.pageUrl}`)
  return { subject: `[${page.pageName}] ${headline}`, body: [headline, ...lines].join("\n\n") }
}

/**
 * The footer every subscriber mail ends with: why it came and how to stop it.
 *
 * @since 0.2.0
 * @category rendering
 */
export const footer = (pageName: string, unsubscribeUrl: string): string =>
  `--\nYou receive this because you subscribed to updates from ${pageName}.\nUnsubscribe: ${unsubscribeUrl}`
