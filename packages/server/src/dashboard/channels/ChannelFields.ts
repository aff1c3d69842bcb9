/**
 * The fields of each kind of notification channel (core's `Channel.ts` configs), named by their API paths
 * (`config.webhook_url`), for a new channel and for changing a stored one, and a line saying where a channel sends.
 *
 * Secrets are never shown: the API answers each stored one as `***`. On a change, a secret input left empty keeps
 * the stored value: a webhook's signing secret is left out (the API keeps a webhook's secret when the config omits
 * it), and any other stored secret travels as the API's keep-placeholder in a hidden field that a typed value
 * overrides (PATCH replaces the config whole, and `***` is the contract's way to say "keep the stored one"). The
 * placeholder is never put in a visible input, so nobody can save it as if it were a secret.
 */
import { type Channel, type ChannelKind, kinds } from "@signalman/core/Channel"
import { REDACTED } from "@signalman/core/Target"
import * as Fields from "../settings/Fields.js"
import { type Html, html, type Part } from "../Template.js"

export { kinds }

export const kindLabels: Readonly<Record<ChannelKind, string>> = {
  email: "Email",
  webhook: "Webhook",
  slack: "Slack",
  discord: "Discord",
  teams: "Microsoft Teams",
  telegram: "Telegram",
  pagerduty: "PagerDuty",
  opsgenie: "Opsgenie",
  ntfy: "ntfy",
  sms: "SMS"
}

export const kindDescriptions: Readonly<Record<ChannelKind, string>> = {
  email: "Mail alerts to up to 20 addresses.",
  webhook: "POST each alert as JSON to a URL, signed with HMAC-SHA256 in X-Signalman-Signature.",
  slack: "Post to a Slack channel through an incoming webhook.",
  discord: "Post to a Discord channel through a webhook.",
  teams: "Post to a Microsoft Teams channel through an incoming webhook.",
  telegram: "Post to a Telegram chat through your bot.",
  pagerduty: "Open and resolve PagerDuty incidents through Events API v2.",
  opsgenie: "Open and close Opsgenie alerts through an API integration.",
  ntfy: "Publish to an ntfy topic on ntfy.sh or your own server.",
  sms: "Text up to 10 phone numbers (on plans that include SMS)."
}

/** A new channel's fields, or a stored channel's to change. */
export type Mode = { readonly _tag: "create" } | { readonly _tag: "edit"; readonly channel: Channel }

const text = (config: Readonly<Record<string, unknown>>, key: string): string | undefined => {
  const value = config[key]
  return typeof value === "string" ? value : undefined
}

const textList = (config: Readonly<Record<string, unknown>>, key: string): ReadonlyArray<string> => {
  const value = config[key]
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : []
}

const configOf = (mode: Mode): Readonly<Record<string, unknown>> => (mode._tag === "edit" ? mode.channel.config : {})

const stored = (mode: Mode, key: string): boolean => text(configOf(mode), key) === REDACTED

/**
 * A secret's input: empty always. On a change, a stored secret is kept unless a value is typed: the hidden
 * placeholder comes first and a typed value, read after it, replaces it.
 */
const secret = (
  mode: Mode,
  key: string,
  label: string,
  hint: Part,
  options: { readonly optional?: boolean; readonly keptBy?: "placeholder" | "omission" } = {}
): Html => {
  const kept = mode._tag === "edit" && stored(mode, key)
  const keep = kept && (options.keptBy ?? "placeholder") === "placeholder"
  return html`${keep ? Fields.hidden(`config.${key}`, REDACTED) : ""}${Fields.input({
    id: `config-${key}`,
    name: `config.${key}`,
    label,
    hint: kept ? html`A value is stored and not shown. Leave this empty to keep it. ${hint}` : hint,
    attrs: {
      type: "password",
      autocomplete: "off",
      spellcheck: "false",
      required: !kept && options.optional !== true
    }
  })}`
}

const linesField = (mode: Mode, key: string, label: string, hint: string, type: "email" | "tel") =>
  Fields.textarea({
    id: `config-${key}`,
    name: `config.${key}`,
    label,
    hint,
    value: textList(configOf(mode), key).join("\n"),
    attrs: { "data-type": "lines", required: true, spellcheck: "false", inputmode: type, rows: 4 }
  })

const urlField = (mode: Mode, key: string, label: string, hint: Part, fallback?: string) =>
  Fields.input({
    id: `config-${key}`,
    name: `config.${key}`,
    label,
    hint,
    attrs: {
      type: "url",
      value: text(configOf(mode), key) ?? fallback,
      required: fallback === undefined,
      spellcheck: "false"
    }
  })

const webhookHeaders = (mode: Mode): Html => {
  const headers = configOf(mode)["headers"]
  const names = typeof headers === "object" && headers !== null ? Object.keys(headers) : []
  if (mode._tag === "create" || names.length === 0) {
    return Fields.textarea({
      id: "config-headers",
      name: "config.headers",
      label: "Extra headers (optional)",
      hint: html`A JSON object of header names and values sent with every delivery, such as
<code>{"Authorization": "Bearer ..."}</code>. Values are stored as secrets.`,
      attrs: { "data-type": "json", spellcheck: "false" }
    })
  }
  // The stored headers as the API showed them (each value the keep-placeholder): sent unless replaced below.
  return html`${Fields.hidden("config.headers", JSON.stringify(headers), { "data-type": "json" })}${Fields.textarea({
    id: "config-headers",
    name: "config.headers",
    label: "Replace the extra headers",
    hint: html`Stored headers: ${names.join(", ")} (values not shown). Leave this empty to keep them; enter a JSON
object to replace them all, or <code>{}</code> to remove them.`,
    attrs: { "data-type": "json", spellcheck: "false" }
  })}`
}

const choice = (
  key: string,
  label: string,
  options: ReadonlyArray<readonly [string, string]>,
  selected: string,
  attrs: Fields.Field["attrs"] = {}
) =>
  Fields.select({
    id: `config-${key}`,
    name: `config.${key}`,
    label,
    options,
    selected,
    attrs
  })

/** The config fields of a kind. */
export const configFields = (kind: ChannelKind, mode: Mode): Html => {
  const config = configOf(mode)
  switch (kind) {
    case "email":
      return linesField(mode, "addresses", "Addresses", "One address a line, up to 20.", "email")
    case "sms":
      return linesField(
        mode,
        "phone_numbers",
        "Phone numbers",
        "One number a line in E.164 form (+14155550123), up to 10.",
        "tel"
      )
    case "webhook":
      return html`${urlField(mode, "url", "URL", "Where each alert is POSTed as JSON (http or https).")}
${webhookHeaders(mode)}
${secret(
  mode,
  "secret",
  mode._tag === "edit" ? "New signing secret (optional)" : "Signing secret (optional)",
  mode._tag === "edit"
    ? "16 to 256 characters."
    : "16 to 256 characters. Leave it empty and one is made for you and shown once.",
  { optional: true, keptBy: "omission" }
)}`
    case "slack":
    case "discord":
    case "teams":
      return secret(
        mode,
        "webhook_url",
        "Webhook URL",
        `The https URL ${kindLabels[kind]} gives for an incoming webhook. It is the credential, so it is stored as a secret.`
      )
    case "telegram":
      return html`${secret(mode, "bot_token", "Bot token", "From @BotFather, like 123456:ABC-DEF....")}
${Fields.input({
  id: "config-chat_id",
  name: "config.chat_id",
  label: "Chat",
  hint: "A numeric chat id (negative for groups) or @channelname.",
  attrs: { value: text(config, "chat_id"), required: true, spellcheck: "false" }
})}`
    case "pagerduty":
      return html`${secret(mode, "routing_key", "Routing key", "The 32-character integration key of an Events API v2 integration.")}
${choice(
  "severity",
  "Severity",
  [
    ["critical", "Critical"],
    ["error", "Error"],
    ["warning", "Warning"],
    ["info", "Info"]
  ],
  text(config, "severity") ?? "critical"
)}`
    case "opsgenie":
      return html`${secret(mode, "api_key", "API key", "The key of an API integration.")}
${choice(
  "region",
  "Region",
  [
    ["us", "US (api.opsgenie.com)"],
    ["eu", "EU (api.eu.opsgenie.com)"]
  ],
  text(config, "region") ?? "us"
)}
${choice(
  "priority",
  "Priority",
  ["P1", "P2", "P3", "P4", "P5"].map((p) => [p, p] as const),
  text(config, "priority") ?? "P3"
)}`
    case "ntfy":
      return html`${urlField(mode, "server_url", "Server", "ntfy.sh or your own server.", "https://ntfy.sh")}
${Fields.input({
  id: "config-topic",
  name: "config.topic",
  label: "Topic",
  hint: "1 to 64 of A-Z a-z 0-9 _ -.",
  attrs: { value: text(config, "topic"), required: true, spellcheck: "false" }
})}
${secret(mode, "token", "Access token (optional)", "An access token (tk_...) for a protected topic.", { optional: true })}
${choice(
  "priority",
  "Priority",
  [
    ["5", "5 (max)"],
    ["4", "4 (high)"],
    ["3", "3 (default)"],
    ["2", "2 (low)"],
    ["1", "1 (min)"]
  ],
  String(typeof config["priority"] === "number" ? config["priority"] : 4),
  { "data-type": "number" }
)}`
  }
}

/** Where a channel sends, in a line, from the config the API shows (secrets only said to be stored). */
export const destination = (channel: Channel): string => {
  const config = channel.config
  switch (channel.kind) {
    case "email":
      return textList(config, "addresses").join(", ")
    case "sms":
      return textList(config, "phone_numbers").join(", ")
    case "webhook":
      return text(config, "url") ?? ""
    case "slack":
    case "discord":
    case "teams":
      return "Incoming webhook (URL stored as a secret)"
    case "telegram":
      return `Chat ${text(config, "chat_id") ?? ""}`
    case "pagerduty":
      return `Events API v2, severity ${text(config, "severity") ?? "critical"}`
    case "opsgenie":
      return `${(text(config, "region") ?? "us").toUpperCase()} region, priority ${text(config, "priority") ?? "P3"}`
    case "ntfy":
      return `${text(config, "server_url") ?? "https://ntfy.sh"}/${text(config, "topic") ?? ""}`
  }
}
