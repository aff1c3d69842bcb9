/**
 * Notification channels (decisions.md, "Things the spec does not show"): where an org's alerts go. Each kind has
 * the config its service's users know (a Slack incoming-webhook URL, a Telegram bot token and chat id, a PagerDuty
 * Events v2 routing key, ...). Credentials in a config are secrets: redacted as `***` on every answer and kept
 * apart from the rest so they can be sealed at rest.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as ManagedBy from "./ManagedBy.js"
import * as RequestBody from "./RequestBody.js"
import { REDACTED, WriteSource } from "./Target.js"

/**
 * @since 0.1.0
 * @category ids
 */
export const ChannelId = Schema.UUID.pipe(Schema.brand("ChannelId"))

/**
 * @since 0.1.0
 * @category ids
 */
export type ChannelId = typeof ChannelId.Type

/**
 * Every kind of channel.
 *
 * @since 0.1.0
 * @category models
 */
export const kinds = [
  "email",
  "webhook",
  "slack",
  "discord",
  "teams",
  "telegram",
  "pagerduty",
  "opsgenie",
  "ntfy",
  "sms"
] as const

/**
 * @since 0.1.0
 * @category models
 */
export const ChannelKind = Schema.Literal(...kinds)

/**
 * @since 0.1.0
 * @category models
 */
export type ChannelKind = typeof ChannelKind.Type

const parseUrl = (text: string): URL | undefined => {
  try {
    return new URL(text)
  } catch {
    return undefined
  }
}

/** An absolute URL with one of `protocols`, a host, and no user name or password (those belong in a secret). */
const url = (protocols: ReadonlyArray<"https:" | "http:">, what: string) =>
  Schema.String.pipe(
    Schema.maxLength(2048),
    Schema.filter((text) => {
      const parsed = parseUrl(text)
      if (
        parsed === undefined ||
        !protocols.includes(parsed.protocol as "https:" | "http:") ||
        parsed.hostname === ""
      ) {
        return `must be ${what}`
      }
      if (parsed.username !== "" || parsed.password !== "") return "must not carry a user name or password"
      return true
    })
  )

const httpUrl = url(["https:", "http:"], "an http or https URL")

/** A secret: the sentinel (keep the stored value, on a PATCH) or a value passing `valid`. */
const secret = <A extends string>(base: Schema.Schema<A>, valid: (value: string) => true | string) =>
  base.pipe(Schema.filter((value) => value === REDACTED || valid(value)))

const secretHttpsUrl = secret(Schema.String.pipe(Schema.maxLength(2048)), (text) => {
  const parsed = parseUrl(text)
  return parsed !== undefined && parsed.protocol === "https:" && parsed.hostname !== "" ? true : "must be an https URL"
})

const distinct = <A>(items: ReadonlyArray<A>) =>
  new Set(items.map((item) => String(item).toLowerCase())).size === items.length || "lists the same entry twice"

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
const E164 = /^\+[1-9]\d{1,14}$/
const TELEGRAM_BOT_TOKEN = /^\d{3,20}:[A-Za-z0-9_-]{30,64}$/
const TELEGRAM_CHAT_ID = /^(-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{3,31})$/
const PAGERDUTY_ROUTING_KEY = /^[A-Za-z0-9]{32}$/
const NTFY_TOPIC = /^[-_A-Za-z0-9]{1,64}$/
// RFC 9110 token characters.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/
/** Headers the service sets itself on a webhook delivery; a config may not replace them. */
const RESERVED_HEADERS = new Set([
  "host",
  "content-type",
  "content-length",
  "transfer-encoding",
  "connection",
  "x-signalman-signature"
])

const nonBlank = (max: number) => Schema.String.pipe(Schema.minLength(1), Schema.maxLength(max))

/**
 * `email`: the addresses alerts are mailed to.
 *
 * @since 0.1.0
 * @category configs
 */
export const EmailConfig = RequestBody.Struct({
  addresses: Schema.Array(
    Schema.String.pipe(
      Schema.maxLength(254),
      Schema.filter((s) => EMAIL.test(s) || "must be an email address")
    )
  ).pipe(Schema.minItems(1), Schema.maxItems(20), Schema.filter(distinct))
}).annotations({ identifier: "EmailConfig" })

/**
 * `webhook`: a POST of the alert as JSON to `url`, signed with HMAC-SHA256 of the body under `secret` in
 * `X-Signalman-Signature`. `secret` is generated when omitted on create; `headers` are sent with every delivery
 * and their values are secrets (they often carry an authorization).
 *
 * @since 0.1.0
 * @category configs
 */
export const WebhookConfig = RequestBody.Struct({
  url: httpUrl,
  headers: Schema.optionalWith(
    Schema.Record({
      key: Schema.String,
      value: secret(Schema.String.pipe(Schema.maxLength(4096)), (v) =>
        /[\r\n]/.test(v) ? "must not contain a line break" : true
      )
    }).pipe(
      Schema.filter((headers) => {
        const names = Object.keys(headers)
        if (names.length > 20) return "holds more than 20 headers"
        const bad = names.find((name) => !HEADER_NAME.test(name))
        if (bad !== undefined) return `"${bad}" is not a header name`
        const reserved = names.find((name) => RESERVED_HEADERS.has(name.toLowerCase()))
        if (reserved !== undefined) return `${reserved} is set by the service and cannot be configured`
        return distinct(names)
      })
    ),
    { default: () => ({}) }
  ),
  secret: Schema.optionalWith(
    secret(Schema.String, (s) => (s.length >= 16 && s.length <= 256 ? true : "must be 16 to 256 characters")),
    { exact: true }
  )
}).annotations({ identifier: "WebhookConfig" })

/**
 * `slack`, `discord`, `teams`: the incoming-webhook URL the service gives (https). The URL is the credential.
 *
 * @since 0.1.0
 * @category configs
 */
export const IncomingWebhookConfig = RequestBody.Struct({ webhook_url: secretHttpsUrl }).annotations({
  identifier: "IncomingWebhookConfig"
})

/**
 * `telegram`: a bot token from @BotFather and the chat to post in (a numeric id, negative for groups, or
 * `@channelname`).
 *
 * @since 0.1.0
 * @category configs
 */
export const TelegramConfig = RequestBody.Struct({
  bot_token: secret(Schema.String, (s) => TELEGRAM_BOT_TOKEN.test(s) || "must be a bot token (123456:ABC...)"),
  chat_id: Schema.String.pipe(
    Schema.filter((s) => TELEGRAM_CHAT_ID.test(s) || "must be a numeric chat id or @channelname")
  )
}).annotations({ identifier: "TelegramConfig" })

/**
 * `pagerduty`: an Events API v2 integration (routing) key; incidents trigger with `severity` and resolve on recovery.
 *
 * @since 0.1.0
 * @category configs
 */
export const PagerDutyConfig = RequestBody.Struct({
  routing_key: secret(Schema.String, (s) => PAGERDUTY_ROUTING_KEY.test(s) || "must be a 32-character routing key"),
  severity: Schema.optionalWith(Schema.Literal("critical", "error", "warning", "info"), {
    default: () => "critical" as const
  })
}).annotations({ identifier: "PagerDutyConfig" })

/**
 * `opsgenie`: an API integration key and the region of the account's instance (`us` api.opsgenie.com, `eu`
 * api.eu.opsgenie.com).
 *
 * @since 0.1.0
 * @category configs
 */
export const OpsgenieConfig = RequestBody.Struct({
  api_key: secret(nonBlank(200), (s) => (/\s/.test(s) ? "must not contain spaces" : true)),
  region: Schema.optionalWith(Schema.Literal("us", "eu"), { default: () => "us" as const }),
  priority: Schema.optionalWith(Schema.Literal("P1", "P2", "P3", "P4", "P5"), { default: () => "P3" as const })
}).annotations({ identifier: "OpsgenieConfig" })

/**
 * `ntfy`: a topic on ntfy.sh or a self-hosted server, with an optional access token (`tk_...`).
 *
 * @since 0.1.0
 * @category configs
 */
export const NtfyConfig = RequestBody.Struct({
  server_url: Schema.optionalWith(httpUrl, { default: () => "https://ntfy.sh" }),
  topic: Schema.String.pipe(Schema.filter((s) => NTFY_TOPIC.test(s) || "must be 1 to 64 of A-Z a-z 0-9 _ -")),
  token: Schema.optionalWith(
    Schema.NullOr(secret(nonBlank(200), (s) => (/\s/.test(s) ? "must not contain spaces" : true))),
    { default: () => null }
  ),
  priority: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 5)), { default: () => 4 })
}).annotations({ identifier: "NtfyConfig" })

/**
 * `sms`: phone numbers in E.164 (`+14155550123`). Only on plans with `sms_alerts_enabled`.
 *
 * @since 0.1.0
 * @category configs
 */
export const SmsConfig = RequestBody.Struct({
  phone_numbers: Schema.Array(
    Schema.String.pipe(Schema.filter((s) => E164.test(s) || "must be a phone number in E.164 form (+14155550123)"))
  ).pipe(Schema.minItems(1), Schema.maxItems(10), Schema.filter(distinct))
}).annotations({ identifier: "SmsConfig" })

const configs = {
  email: EmailConfig,
  webhook: WebhookConfig,
  slack: IncomingWebhookConfig,
  discord: IncomingWebhookConfig,
  teams: IncomingWebhookConfig,
  telegram: TelegramConfig,
  pagerduty: PagerDutyConfig,
  opsgenie: OpsgenieConfig,
  ntfy: NtfyConfig,
  sms: SmsConfig
} as const

const settingsOf = <K extends ChannelKind>(kind: K) =>
  Schema.Struct({ kind: Schema.Literal(kind), config: configs[kind] as (typeof configs)[K] })

/**
 * A kind with its config: what the service validates, whichever endpoint the config came through.
 *
 * @since 0.1.0
 * @category models
 */
export const Settings = Schema.Union(
  settingsOf("email"),
  settingsOf("webhook"),
  settingsOf("slack"),
  settingsOf("discord"),
  settingsOf("teams"),
  settingsOf("telegram"),
  settingsOf("pagerduty"),
  settingsOf("opsgenie"),
  settingsOf("ntfy"),
  settingsOf("sms")
)

/**
 * @since 0.1.0
 * @category models
 */
export type Settings = typeof Settings.Type

const name = Schema.Trim.pipe(Schema.minLength(1), Schema.maxLength(200))

const createOf = <K extends ChannelKind>(kind: K) =>
  RequestBody.Struct({
    name,
    kind: Schema.Literal(kind),
    config: configs[kind] as (typeof configs)[K],
    enabled: Schema.optionalWith(Schema.Boolean, { exact: true })
  })

/**
 * `POST /api/v1/channels`: a name, the kind (fixed from then on) and its config; `enabled` defaults to true.
 *
 * @since 0.1.0
 * @category requests
 */
export const CreateChannel = Schema.Union(
  createOf("email"),
  createOf("webhook"),
  createOf("slack"),
  createOf("discord"),
  createOf("teams"),
  createOf("telegram"),
  createOf("pagerduty"),
  createOf("opsgenie"),
  createOf("ntfy"),
  createOf("sms")
).annotations({ identifier: "CreateChannel" })

/**
 * @since 0.1.0
 * @category requests
 */
export type CreateChannel = typeof CreateChannel.Type

/**
 * `PATCH /api/v1/channels/{id}`. `config`, when sent, replaces the stored one whole and is judged by the stored kind
 * (the kind is fixed), so here it is any object; a secret sent as `***` keeps the stored value.
 *
 * @since 0.1.0
 * @category requests
 */
export const PatchChannel = RequestBody.Struct({
  name: Schema.optionalWith(name, { exact: true }),
  enabled: Schema.optionalWith(Schema.Boolean, { exact: true }),
  config: Schema.optionalWith(
    Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
      description: "The config of the channel's kind, as on create; a secret sent as *** keeps the stored value."
    }),
    { exact: true }
  )
}).annotations({ identifier: "PatchChannel" })

/**
 * @since 0.1.0
 * @category requests
 */
export type PatchChannel = typeof PatchChannel.Type

/**
 * A channel as the service answers it: every populated secret in `config` reads `***`.
 *
 * @since 0.1.0
 * @category models
 */
export class Channel extends Schema.Class<Channel>("Channel")({
  id: ChannelId,
  name: Schema.String,
  kind: ChannelKind,
  config: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  enabled: Schema.Boolean,
  write_source: WriteSource,
  managed_by: ManagedBy.Field,
  created_at: Schema.DateTimeUtc,
  updated_at: Schema.DateTimeUtc
}) {}

/**
 * The answer to a create: the channel, plus the webhook signing secret when the service generated it. This is the
 * only time it is shown, like an API token.
 *
 * @since 0.1.0
 * @category models
 */
export class CreatedChannel extends Channel.extend<CreatedChannel>("CreatedChannel")({
  signing_secret: Schema.optionalWith(Schema.String, { exact: true })
}) {}

/**
 * A config split for storage: `shown` is what every answer carries (each populated secret replaced by `***`);
 * `secrets` holds the secret values by field (`webhook_url`, `headers.Authorization`), to be sealed.
 *
 * @since 0.1.0
 * @category models
 */
export interface Split {
  readonly shown: Record<string, unknown>
  readonly secrets: Record<string, string>
}

interface SecretField {
  /** The field under `config`, as the secrets map keys it. */
  readonly key: string
  readonly value: string
}

const secretFields = (settings: Settings): ReadonlyArray<SecretField> => {
  switch (settings.kind) {
    case "email":
    case "sms":
      return []
    case "webhook":
      return [
        ...(settings.config.secret === undefined ? [] : [{ key: "secret", value: settings.config.secret }]),
        ...Object.entries(settings.config.headers).map(([header, value]) => ({ key: `headers.${header}`, value }))
      ]
    case "slack":
    case "discord":
    case "teams":
      return [{ key: "webhook_url", value: settings.config.webhook_url }]
    case "telegram":
      return [{ key: "bot_token", value: settings.config.bot_token }]
    case "pagerduty":
      return [{ key: "routing_key", value: settings.config.routing_key }]
    case "opsgenie":
      return [{ key: "api_key", value: settings.config.api_key }]
    case "ntfy":
      return settings.config.token === null ? [] : [{ key: "token", value: settings.config.token }]
  }
}

// Header names are case-insensitive: `***` under `authorization` keeps a stored `Authorization`.
const keptValue = (kept: Readonly<Record<string, string>>, key: string): string | undefined => {
  if (kept[key] !== undefined) return kept[key]
  if (!key.startsWith("headers.")) return undefined
  const wanted = key.toLowerCase()
  return Object.entries(kept).find(([k]) => k.toLowerCase() === wanted)?.[1]
}

const setAt = (config: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> => {
  if (key.startsWith("headers.")) {
    const headers = config["headers"]
    const map = typeof headers === "object" && headers !== null ? headers : {}
    return { ...config, headers: { ...map, [key.slice("headers.".length)]: value } }
  }
  return { ...config, [key]: value }
}

/**
 * Splits a config for storage. A secret sent as `***` takes its value from `kept` (the stored secrets, on a PATCH;
 * nothing on a create); when `kept` has none the answer is the field to refuse, as `config.<field>`. A webhook
 * config that omits `secret` keeps the stored one too: a webhook always has a signing secret.
 *
 * @since 0.1.0
 * @category redaction
 */
export const split = (settings: Settings, kept: Readonly<Record<string, string>>): Either.Either<Split, string> => {
  let shown: Record<string, unknown> = { ...settings.config }
  const secrets: Record<string, string> = {}
  for (const field of secretFields(settings)) {
    const value = field.value === REDACTED ? keptValue(kept, field.key) : field.value
    if (value === undefined) return Either.left(`config.${field.key}`)
    secrets[field.key] = value
    shown = setAt(shown, field.key, REDACTED)
  }
  if (settings.kind === "webhook" && settings.config.secret === undefined && kept["secret"] !== undefined) {
    secrets["secret"] = kept["secret"]
    shown = setAt(shown, "secret", REDACTED)
  }
  return Either.right({ shown, secrets })
}

/**
 * The full config again: the shown config with every secret put back (what a delivery decodes with
 * {@link Settings}).
 *
 * @since 0.1.0
 * @category redaction
 */
export const reveal = (shown: Readonly<Record<string, unknown>>, secrets: Readonly<Record<string, string>>) =>
  Object.entries(secrets).reduce<Record<string, unknown>>((config, [key, value]) => setAt(config, key, value), {
    ...shown
  })

/**
 * The URLs of a config the service will connect to, each with its field, for the internal-address guard. A secret
 * URL sent as `***` is left out (the stored one was judged when it was written).
 *
 * @since 0.1.0
 * @category validation
 */
export const addresses = (settings: Settings): ReadonlyArray<{ readonly field: string; readonly url: string }> => {
  switch (settings.kind) {
    case "webhook":
      return [{ field: "config.url", url: settings.config.url }]
    case "ntfy":
      return [{ field: "config.server_url", url: settings.config.server_url }]
    case "slack":
    case "discord":
    case "teams":
      return settings.config.webhook_url === REDACTED
        ? []
        : [{ field: "config.webhook_url", url: settings.config.webhook_url }]
    default:
      return []
  }
}
