/**
 * Mail to status-page subscribers, built and sent when the notifier delivers a page notice (the outbox, its backoff
 * and dead-lettering are the notifier's), and the confirmation mail of a subscription.
 *
 * Every update mail ends with the unsubscribe link and carries `List-Unsubscribe` with
 * `List-Unsubscribe-Post: List-Unsubscribe=One-Click` (RFC 8058), so a mail client's unsubscribe button works
 * without opening anything.
 */
import * as HttpServer from "@effect/platform/HttpServer"
import * as PageSubscription from "@signalman/core/PageSubscription"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { AppConfig, publicBaseUrl } from "../config/Config.js"
import { Sealer } from "../crypto/Sealer.js"
import { Mailer } from "../infra/Mailer.js"
import { type Recipient, SubscriberDelivery } from "../notify/SubscriberDelivery.js"
import type * as Transport from "../notify/Transport.js"

export const CONFIRM_PATH = "/subscriptions/confirm"
export const UNSUBSCRIBE_PATH = "/subscriptions/unsubscribe"

const decodeNotice = Schema.decodeUnknownEither(PageSubscription.PageNotice)

/**
 * The origin links are built on: the bound server's when there is one (as every mail link), else the configured
 * `auth.public_base_url`.
 */
export const origin = Effect.gen(function* () {
  const server = yield* Effect.serviceOption(HttpServer.HttpServer)
  if (Option.isSome(server)) return yield* Effect.provideService(publicBaseUrl, HttpServer.HttpServer, server.value)
  const config = yield* AppConfig
  return (config["auth.public_base_url"] ?? `http://localhost:${config["server.port"]}`).replace(/\/+$/, "")
})

export class SubscriberMail extends Effect.Service<SubscriberMail>()("Signalman/SubscriberMail", {
  effect: Effect.gen(function* () {
    const mailer = yield* Mailer
    const sealer = yield* Sealer
    const base = yield* origin

    const unsubscribeUrl = (token: string) => `${base}${UNSUBSCRIBE_PATH}?token=${token}`

    /**
     * Sends one page notice to one subscriber. `final` marks an outcome not worth retrying (the person left, the
     * payload or the seal cannot be read).
     */
    const deliver = (
      recipient: Recipient,
      payload: unknown
    ): Effect.Effect<{ readonly outcome: Transport.Outcome; readonly final: boolean }> =>
      Effect.gen(function* () {
        if (recipient.inactive) {
          return { outcome: { ok: false, status_code: null, error: "the subscriber has unsubscribed" }, final: true }
        }
        const notice = decodeNotice(payload)
        if (notice._tag === "Left") {
          return { outcome: { ok: false, status_code: null, error: "the page notice cannot be read" }, final: true }
        }
        const token = yield* Effect.either(sealer.open(recipient.unsubscribeSealed))
        if (token._tag === "Left") {
          return { outcome: { ok: false, status_code: null, error: token.left.message }, final: true }
        }
        const { event, page, components } = notice.right
        const mail = PageSubscription.render(event, {
          pageName: page.name,
          pageUrl: PageSubscription.pageUrl(base, page),
          components
        })
        const link = unsubscribeUrl(token.right)
        const sent = yield* Effect.either(
          mailer.send({
            to: recipient.email,
            subject: mail.subject,
            text: `${mail.body}\n\n${PageSubscription.footer(page.name, link)}\n`,
            headers: {
              "List-Unsubscribe": `<${link}>`,
              "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"
            }
          })
        )
        return sent._tag === "Right"
          ? { outcome: { ok: true, status_code: null, error: null }, final: false }
          : { outcome: { ok: false, status_code: null, error: `smtp: ${String(sent.left.cause)}` }, final: false }
      })

    /** The double opt-in mail: the confirmation link, and a word on what it is for. */
    const confirmation = (email: string, pageName: string, token: string) =>
      mailer.send({
        to: email,
        subject: `Confirm your subscription to ${pageName}`,
        text:
          `Someone, hopefully you, asked to receive incident and maintenance updates from ${pageName} at this ` +
          `address.\n\nConfirm the subscription: ${base}${CONFIRM_PATH}?token=${token}\n\n` +
          "The link works for 48 hours. If you did not ask for this, ignore this mail: nothing will be sent.\n"
      })

    return { deliver, confirmation, unsubscribeUrl }
  }),
  dependencies: [Sealer.Default, Mailer.layer]
}) {}

/** Binds the notifier's subscriber deliveries to this mail. */
export const delivery = Layer.effect(
  SubscriberDelivery,
  Effect.map(SubscriberMail, (mail) => ({ deliver: mail.deliver }))
).pipe(Layer.provide(SubscriberMail.Default))
