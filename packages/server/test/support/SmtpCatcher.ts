/**
 * A real SMTP server on loopback that keeps every mail it receives, parsed, so tests read what users would read.
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { simpleParser } from "mailparser"
import { SMTPServer } from "smtp-server"

export interface CaughtMail {
  readonly to: string
  readonly subject: string
  readonly text: string
  /** Every header field as sent, lower-case name and the raw line. */
  readonly headerLines: ReadonlyArray<{ readonly key: string; readonly line: string }>
}

export interface SmtpCatcher {
  readonly url: string
  readonly mails: () => ReadonlyArray<CaughtMail>
  /** The mails to an address, waiting (bounded) until at least `count` arrived. */
  readonly waitFor: (to: string, count?: number, timeoutMs?: number) => Promise<ReadonlyArray<CaughtMail>>
}

export const make: Effect.Effect<SmtpCatcher, never, Scope.Scope> = Effect.acquireRelease(
  Effect.promise(async () => {
    const caught: Array<CaughtMail> = []
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS"],
      logger: false,
      onData(stream, session, callback) {
        simpleParser(stream)
          .then((parsed) => {
            for (const rcpt of session.envelope.rcptTo) {
              caught.push({
                to: rcpt.address.toLowerCase(),
                subject: parsed.subject ?? "",
                text: parsed.text ?? "",
                headerLines: parsed.headerLines.map((h) => ({ key: h.key, line: h.line }))
              })
            }
            callback()
          })
          .catch((error: Error) => callback(error))
      }
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const address = server.server.address()
    if (address === null || typeof address === "string") throw new Error("smtp: no TCP address")
    const forAddress = (to: string) => caught.filter((m) => m.to === to.toLowerCase())
    const catcher: SmtpCatcher & { close: () => Promise<void> } = {
      url: `smtp://127.0.0.1:${address.port}`,
      mails: () => [...caught],
      // Generous: on a loaded machine a mail can take seconds; the wait ends as soon as the count is reached.
      waitFor: async (to, count = 1, timeoutMs = 30_000) => {
        const until = Date.now() + timeoutMs
        while (forAddress(to).length < count && Date.now() < until) await new Promise((r) => setTimeout(r, 50))
        return forAddress(to)
      },
      close: () => new Promise<void>((resolve) => server.close(() => resolve()))
    }
    return catcher
  }),
  (catcher) => Effect.promise(() => (catcher as SmtpCatcher & { close: () => Promise<void> }).close())
)

/** The verify link and the code of a magic-link mail. */
export const magicLinkOf = (mail: CaughtMail) => {
  const link = /https?:\/\/\S+\/auth\/magic-link\/verify\?token=[A-Za-z0-9_-]+/.exec(mail.text)?.[0]
  const code = /asked for it: ([0-9A-Z]{6})/.exec(mail.text)?.[1]
  if (link === undefined || code === undefined) throw new Error(`not a magic-link mail: ${mail.text}`)
  return { link, code, token: new URL(link).searchParams.get("token") ?? "" }
}
