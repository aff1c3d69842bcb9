/**
 * What each channel kind sends for a message, in the service's own API shape (docs/notifications.md): a pure
 * function from the channel's full config and the message to the requests to make, so the shapes are tested
 * without a network and the transport stays one small piece.
 */
import { createHmac } from "node:crypto"
import type * as Channel from "@signalman/core/Channel"
import * as Notification from "@signalman/core/Notification"
import * as DateTime from "effect/DateTime"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type { Message } from "./Message.js"

export type Request =
  | {
      readonly _tag: "Http"
      readonly url: string
      readonly headers: Readonly<Record<string, string>>
      readonly body: string
    }
  | {
      readonly _tag: "Mail"
      readonly to: ReadonlyArray<string>
      readonly subject: string
      readonly text: string
    }

/** The third-party endpoints, from the settings (tests point them at fakes on loopback). */
export interface Endpoints {
  readonly telegram: string
  readonly pagerduty: string
  readonly opsgenie: { readonly us: string; readonly eu: string }
  readonly sms: {
    readonly url: string
    readonly accountSid: string | undefined
    readonly authToken: string | undefined
    readonly from: string | undefined
  }
}

export const USER_AGENT = "Signalman-Notifier/0.1"

const json = (url: string, body: unknown, headers: Record<string, string> = {}): Request => ({
  _tag: "Http",
  url,
  headers: { "content-type": "application/json", "user-agent": USER_AGENT, ...headers },
  body: JSON.stringify(body)
})

const trimmed = (base: string) => base.replace(/\/+$/, "")

const encodeEvent = Schema.encodeSync(Notification.WebhookEvent)

/**
 * The webhook signature header, as Stripe signs: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`. The
 * timestamp is inside the signed text so a receiver can refuse old replays.
 */
export const signature = (secret: string, body: string, unixSeconds: number): string =>
  `t=${unixSeconds},v1=${createHmac("sha256", secret).update(`${unixSeconds}.${body}`).digest("hex")}`

const color = { down: 0xd92d20, up: 0x12b76a, test: 0x2e90fa } as const
const emoji = { down: "🔴", up: "✅", test: "🔔" } as const

const slack = (message: Message) => ({
  text: `${emoji[message.tone]} ${message.title}`,
  blocks: [
    { type: "header", text: { type: "plain_text", text: `${emoji[message.tone]} ${message.title}`.slice(0, 150) } },
    { type: "section", text: { type: "plain_text", text: message.text.slice(0, 3000) } }
  ]
})

const discord = (message: Message) => ({
  content: `${emoji[message.tone]} ${message.title}`.slice(0, 2000),
  allowed_mentions: { parse: [] },
  embeds: [
    {
      title: message.title.slice(0, 256),
      description: message.text.slice(0, 4096),
      color: color[message.tone],
      timestamp: DateTime.formatIso(message.event.created_at),
      footer: { text: "Signalman" }
    }
  ]
})

// A Teams workflow ("Post to a channel when a webhook request is received") takes a message with an Adaptive
// Card attachment; the same body is accepted by the retired Office 365 connectors.
const teams = (message: Message) => ({
  type: "message",
  attachments: [
    {
      contentType: "application/vnd.microsoft.card.adaptive",
      contentUrl: null,
      content: {
        $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
        type: "AdaptiveCard",
        version: "1.4",
        body: [
          {
            type: "TextBlock",
            size: "Large",
            weight: "Bolder",
            wrap: true,
            color: message.tone === "down" ? "Attention" : message.tone === "up" ? "Good" : "Accent",
            text: message.title
          },
          { type: "TextBlock", wrap: true, text: message.text.replaceAll("\n", "\n\n") }
        ]
      }
    }
  ]
})

const plain = (message: Message) => `${message.title}\n\n${message.text}`

// ntfy takes header values in ASCII; other text goes as RFC 2047 encoded-words, which it decodes.
const headerText = (text: string) =>
  /^[\x20-\x7e]*$/.test(text) ? text : `=?UTF-8?B?${Buffer.from(text, "utf8").toString("base64")}?=`

const ntfyTags = { down: "rotating_light", up: "white_check_mark", test: "bell" } as const

/** PagerDuty and Opsgenie key their alert by the incident, so a recovery resolves the alert it opened. */
const alertKey = (message: Message) => message.event.incident?.id ?? `test-${message.event.id}`

const pagerduty = (config: Channel.Settings & { kind: "pagerduty" }, message: Message) => {
  const resolves = message.event.type === "incident.recovered" || message.event.type === "incident.resolved"
  if (resolves) {
    return { routing_key: config.config.routing_key, event_action: "resolve", dedup_key: alertKey(message) }
  }
  const { target, incident } = message.event
  return {
    routing_key: config.config.routing_key,
    event_action: "trigger",
    dedup_key: alertKey(message),
    payload: {
      summary: message.title.slice(0, 1024),
      source: target?.name ?? "Signalman",
      severity: message.tone === "test" ? "info" : config.config.severity,
      timestamp: DateTime.formatIso(message.event.created_at),
      component: target?.name,
      class: target?.type,
      custom_details: {
        text: message.text,
        incident_number: incident?.number,
        impact: incident?.impact,
        cause: incident?.cause,
        event: message.event.type
      }
    },
    client: "Signalman"
  }
}

const opsgenie = (config: Channel.Settings & { kind: "opsgenie" }, message: Message, endpoints: Endpoints) => {
  const base = `${trimmed(config.config.region === "eu" ? endpoints.opsgenie.eu : endpoints.opsgenie.us)}/v2/alerts`
  const auth = { authorization: `GenieKey ${config.config.api_key}` }
  const alias = alertKey(message)
  if (message.event.type === "incident.recovered" || message.event.type === "incident.resolved") {
    return json(
      `${base}/${encodeURIComponent(alias)}/close?identifierType=alias`,
      { source: "Signalman", note: `${message.title}\n${message.text}` },
      auth
    )
  }
  const { target, incident } = message.event
  return json(
    base,
    {
      message: message.title.slice(0, 130),
      alias,
      description: message.text.slice(0, 15_000),
      source: "Signalman",
      priority: message.tone === "test" ? "P5" : config.config.priority,
      tags: ["signalman", ...(message.tone === "test" ? ["test"] : [])],
      entity: target?.name,
      details: {
        event: message.event.type,
        ...(incident === null ? {} : { incident_number: String(incident.number), impact: incident.impact })
      }
    },
    auth
  )
}

const sms = (config: Channel.Settings & { kind: "sms" }, message: Message, endpoints: Endpoints) => {
  const { accountSid, authToken, from } = endpoints.sms
  if (accountSid === undefined || authToken === undefined || from === undefined) {
    return Either.left("SMS is not configured on this instance (notifier.sms.account_sid, auth_token and from)")
  }
  const url = `${trimmed(endpoints.sms.url)}/2010-04-01/Accounts/${encodeURIComponent(accountSid)}/Messages.json`
  const authorization = `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString("base64")}`
  // One short text per number; a message longer than a few segments costs more and says no more.
  const body = `${message.title}\n${message.text}`.slice(0, 480)
  return Either.right(
    config.config.phone_numbers.map(
      (to): Request => ({
        _tag: "Http",
        url,
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          "user-agent": USER_AGENT,
          authorization
        },
        body: new URLSearchParams({ To: to, From: from, Body: body }).toString()
      })
    )
  )
}

// An escalation page reaches people who set nothing up themselves: the footer says why it came and how it stops.
const mailFooter = (message: Message) =>
  message.event.type === "incident.escalation"
    ? "Sent by Signalman: the monitor's escalation policy pages you until someone acknowledges the incident."
    : "Sent by Signalman for the notification channel you set up."

/**
 * The requests a delivery makes, in order (an sms channel makes one per number), or why it cannot be made.
 * `deliveryId` is the webhook's idempotency key: the same on every retry of one delivery.
 */
export const build = (
  settings: Channel.Settings,
  message: Message,
  deliveryId: string,
  now: DateTime.Utc,
  endpoints: Endpoints
): Either.Either<ReadonlyArray<Request>, string> => {
  switch (settings.kind) {
    case "email":
      return Either.right([
        {
          _tag: "Mail",
          to: settings.config.addresses,
          subject: `[Signalman] ${message.title}`,
          text: `${message.text}\n\n-- \n${mailFooter(message)}`
        }
      ])
    case "webhook": {
      const body = JSON.stringify(encodeEvent(message.event))
      const secret = settings.config.secret
      if (secret === undefined) return Either.left("the webhook has no signing secret")
      return Either.right([
        {
          _tag: "Http",
          url: settings.config.url,
          headers: {
            ...settings.config.headers,
            "content-type": "application/json",
            "user-agent": USER_AGENT,
            "x-signalman-event": message.event.type,
            "x-signalman-delivery": deliveryId,
            "idempotency-key": deliveryId,
            "x-signalman-signature": signature(secret, body, Math.floor(DateTime.toEpochMillis(now) / 1000))
          },
          body
        }
      ])
    }
    case "slack":
      return Either.right([json(settings.config.webhook_url, slack(message))])
    case "discord":
      return Either.right([json(settings.config.webhook_url, discord(message))])
    case "teams":
      return Either.right([json(settings.config.webhook_url, teams(message))])
    case "telegram":
      return Either.right([
        json(`${trimmed(endpoints.telegram)}/bot${settings.config.bot_token}/sendMessage`, {
          chat_id: settings.config.chat_id,
          text: `${emoji[message.tone]} ${plain(message)}`.slice(0, 4096),
          link_preview_options: { is_disabled: true }
        })
      ])
    case "pagerduty":
      return Either.right([json(endpoints.pagerduty, pagerduty(settings, message))])
    case "opsgenie":
      return Either.right([opsgenie(settings, message, endpoints)])
    case "ntfy":
      return Either.right([
        {
          _tag: "Http",
          url: `${trimmed(settings.config.server_url)}/${settings.config.topic}`,
          headers: {
            "content-type": "text/plain; charset=utf-8",
            "user-agent": USER_AGENT,
            title: headerText(message.title),
            priority: String(message.tone === "test" ? 3 : settings.config.priority),
            tags: ntfyTags[message.tone],
            ...(settings.config.token === null ? {} : { authorization: `Bearer ${settings.config.token}` })
          },
          body: message.text
        }
      ])
    case "sms":
      return sms(settings, message, endpoints)
  }
}
