/**
 * The dashboard's one navigation: every page group has its entry here, in the order a person looks for them. The
 * account and billing pages (filled by their own features) have their places too, so the frame never changes shape
 * as features arrive.
 */

export type Section = "monitoring" | "publishing" | "settings"

export interface Entry {
  /** The key a page names to be marked as the current one. */
  readonly key: string
  readonly label: string
  readonly href: string
  readonly section: Section
}

export const entries: ReadonlyArray<Entry> = [
  { key: "monitors", label: "Monitors", href: "/", section: "monitoring" },
  { key: "incidents", label: "Incidents", href: "/incidents", section: "monitoring" },
  { key: "maintenance", label: "Maintenance", href: "/maintenance", section: "monitoring" },
  { key: "on-call", label: "On-call", href: "/on-call", section: "monitoring" },
  { key: "status-pages", label: "Status pages", href: "/status-pages", section: "publishing" },
  { key: "channels", label: "Alert channels", href: "/channels", section: "settings" },
  { key: "variables", label: "Variables", href: "/variables", section: "settings" },
  { key: "tags", label: "Tags", href: "/tags", section: "settings" },
  { key: "org", label: "Organization", href: "/settings/org", section: "settings" },
  { key: "tokens", label: "API tokens", href: "/settings/tokens", section: "settings" },
  { key: "account", label: "Account", href: "/settings/account", section: "settings" },
  { key: "billing", label: "Billing", href: "/settings/billing", section: "settings" }
]

export const sections: ReadonlyArray<Section> = ["monitoring", "publishing", "settings"]

export const sectionTitles: Readonly<Record<Section, string>> = {
  monitoring: "Monitoring",
  publishing: "Publishing",
  settings: "Settings"
}

export type Key = (typeof entries)[number]["key"]
