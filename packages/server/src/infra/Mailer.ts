/**
 * Outgoing mail: through SMTP when `mail.smtp_url` is set, otherwise one log line per mail (with its links and
 * code), so a fresh install can sign in without a mail server.
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Nodemailer from "nodemailer"
import { AppConfig } from "../config/Config.js"

export interface Mail {
  readonly to: string
  readonly subject: string
  readonly text: string
  readonly html?: string
  /** Extra header fields (`List-Unsubscribe` on subscriber mail). */
  readonly headers?: Readonly<Record<string, string>>
}

export class MailError extends Data.TaggedError("MailError")<{ readonly cause: unknown }> {}

export class Mailer extends Effect.Tag("Signalman/Mailer")<
  Mailer,
  { readonly send: (mail: Mail) => Effect.Effect<void, MailError> }
>() {
  static readonly layer = Layer.effect(
    Mailer,
    Effect.gen(function* () {
      const config = yield* AppConfig
      const url = config["mail.smtp_url"]
      const from = config["mail.from"]
      if (url === undefined) {
        return {
          send: (mail: Mail) =>
            Effect.logInfo(`Mail to ${mail.to}: ${mail.subject}`).pipe(Effect.annotateLogs({ mail_text: mail.text }))
        }
      }
      const transport = Nodemailer.createTransport(url)
      return {
        send: (mail: Mail) =>
          Effect.tryPromise({
            try: () =>
              transport.sendMail({
                from,
                to: mail.to,
                subject: mail.subject,
                text: mail.text,
                html: mail.html,
                ...(mail.headers === undefined ? {} : { headers: { ...mail.headers } })
              }),
            catch: (cause) => new MailError({ cause })
          }).pipe(Effect.asVoid)
      }
    })
  )
}
