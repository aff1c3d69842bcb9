/**
 * The words and shapes the status-page screens show, as pure functions of what the services answered: who may open
 * a page, where a subscription stands, a component with its monitor's name beside it, the monitors still free to
 * add, the groups in the order the public page shows them. Kept apart from the markup so each rule has a unit test.
 */
import type * as StatusPage from "@signalman/core/StatusPage"
import type { PageSubscriber, SubscriberState } from "../../subscribers/Subscribers.js"

/** Who may open a page, in words: "Public", or "Private" with its ways in. */
export const accessLabel = (access: StatusPage.Access | null): string => {
  if (access === null || !access.protected) return "Public"
  const ways = [
    access.email_code.enabled ? "email code" : undefined,
    access.password.enabled ? "password" : undefined
  ].filter((way): way is string => way !== undefined)
  return ways.length === 0 ? "Private" : `Private: ${ways.join(" or ")}`
}

const stateLabels: Readonly<Record<SubscriberState, string>> = {
  confirmed: "Confirmed",
  pending: "Awaiting confirmation",
  unsubscribed: "Unsubscribed"
}

/** Where a subscription stands, in words. */
export const subscriberStateLabel = (state: SubscriberState): string => stateLabels[state]

const admittedLabels: Readonly<Record<PageSubscriber["admittedBy"], string>> = {
  public: "Public page",
  password: "Page password",
  viewer: "Signed-in viewer"
}

/** How a subscriber got in, in words. */
export const admittedLabel = (admittedBy: PageSubscriber["admittedBy"]): string => admittedLabels[admittedBy]

/** A monitor as the pages name it. */
export interface Monitor {
  readonly id: string
  readonly name: string
}

/** A component of a page with the names it is shown and known by. */
export interface ComponentView {
  readonly targetId: string
  /** What the public page shows: the public name, else the monitor's. */
  readonly shownName: string
  /** The monitor's own name (null when the monitor could not be read). */
  readonly monitorName: string | null
  readonly publicName: string | null
  readonly description: string | null
  readonly group: string | null
}

/** The page's components in their order, each with its monitor's name. */
export const componentViews = (
  components: ReadonlyArray<StatusPage.Component>,
  monitors: ReadonlyArray<Monitor>
): ReadonlyArray<ComponentView> => {
  const names = new Map(monitors.map((m) => [m.id.toLowerCase(), m.name]))
  return [...components]
    .sort((a, b) => a.sort_order - b.sort_order)
    .map((c) => {
      const monitorName = names.get(c.target_id.toLowerCase()) ?? null
      return {
        targetId: c.target_id,
        shownName: c.public_name ?? monitorName ?? "Unnamed monitor",
        monitorName,
        publicName: c.public_name,
        description: c.public_description,
        group: c.public_group
      }
    })
}

/** The org's monitors not yet on the page, by name. */
export const monitorsToAdd = (
  monitors: ReadonlyArray<Monitor>,
  components: ReadonlyArray<StatusPage.Component>
): ReadonlyArray<Monitor> => {
  const taken = new Set(components.map((c) => c.target_id.toLowerCase()))
  return monitors
    .filter((m) => !taken.has(m.id.toLowerCase()))
    .sort((a, b) => a.name.localeCompare(b.name, "en", { sensitivity: "base" }))
}

/**
 * The groups of the components, in the order the public page shows them: the order of each group's first
 * component (components without a group are shown as one more group, where the first of them stands).
 */
export const groupOrder = (components: ReadonlyArray<ComponentView>): ReadonlyArray<string | null> => {
  const seen: Array<string | null> = []
  for (const c of components) if (!seen.includes(c.group)) seen.push(c.group)
  return seen
}

/** The path of a page on this service's host. */
export const publicPath = (slug: string): string => `/p/${encodeURIComponent(slug)}`

/**
 * The path of a URL this service answered (a logo URL is absolute, on the configured public base), so the
 * dashboard loads it from its own origin, which its content security policy allows.
 */
export const pathOf = (url: string): string => {
  try {
    const parsed = new URL(url)
    return `${parsed.pathname}${parsed.search}`
  } catch {
    return url
  }
}

const pad = (n: number) => String(n).padStart(2, "0")

/** An instant as people read it in a table: `2025-03-01 14:05 UTC`. */
export const formatInstant = (date: Date): string =>
  `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())} ` +
  `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())} UTC`
