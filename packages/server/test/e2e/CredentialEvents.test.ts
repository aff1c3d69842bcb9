/**
 * The credential-event service on a real database (both kinds) with mail caught by a real SMTP server: the row, the
 * account mail, the counter, the other sessions signed out on removal, and the deletion grace window's silence.
 * The HTTP surfaces that call it (provider links, passkeys) test it end to end in their own files.
 */
import { createServer } from "node:http"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, layer } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import { Sessions } from "../../src/auth/Sessions.js"
import * as Config from "../../src/config/Config.js"
import { CredentialEvents, changesTotal } from "../../src/credentials/CredentialEvents.js"
import * as Database from "../../src/database/Database.js"
import * as Embedded from "../../src/database/Embedded.js"
import { uuidv7 } from "../../src/infra/Ids.js"
import { Mailer } from "../../src/infra/Mailer.js"
import * as SmtpCatcher from "../support/SmtpCatcher.js"
import * as TestDatabase from "../support/TestDatabase.js"

class Smtp extends Context.Tag("test/CredentialEventsSmtp")<Smtp, SmtpCatcher.SmtpCatcher>() {}

const firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
const device = { ip: "203.0.113.7", userAgent: firefox }

/** The service and what it stands on: the test database migrated, the real mailer to a catcher, a bound listener. */
const services = Layer.unwrapScoped(
  Effect.gen(function* () {
    const smtp = yield* SmtpCatcher.make
    const db = yield* TestDatabase.acquire
    const config = Config.fromEnv({
      HOST: "127.0.0.1",
      PORT: "0",
      LOG__LEVEL: "error",
      MAIL__SMTP_URL: smtp.url,
      AUTH__PUBLIC_BASE_URL: "https://signalman.example",
      ...db.env
    })
    return Layer.mergeAll(CredentialEvents.Default, Sessions.Default, Layer.succeed(Smtp, smtp)).pipe(
      Layer.provideMerge(Mailer.layer),
      Layer.provideMerge(Database.layer),
      Layer.provide(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })),
      Layer.provide(Config.layer(config)),
      Layer.provide(Layer.succeed(Embedded.Seed, db.seed))
    )
  })
)

let n = 0
/** A person of their own: an account and a user, with `sessions` live sessions. */
const person = (sessionCount: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const sessions = yield* Sessions
    const accountId = uuidv7()
    const userId = uuidv7()
    const email = `credentials-${Date.now()}-${n++}@example.com`
    yield* sql`INSERT INTO accounts (id, plan_id) VALUES (${accountId}, 'free')`
    yield* sql`INSERT INTO users (id, account_id, email) VALUES (${userId}, ${accountId}, ${email})`
    const created = yield* Effect.forEach(Array.from({ length: sessionCount }), () =>
      sessions.create(userId, null, device)
    )
    return { accountId, userId, email, sessionIds: created.map((s) => s.id) }
  })

const count = (method: string, change: string) =>
  Effect.map(
    Metric.value(Metric.tagged(Metric.tagged(changesTotal, "method", method), "change", change)),
    (state) => state.count
  )

describe(`credential events (${TestDatabase.kind} database)`, () => {
  layer(services, { timeout: 120_000 })((it) => {
    it.effect("added records the change, mails the account naming the method and label, and counts it", () =>
      Effect.gen(function* () {
        const events = yield* CredentialEvents
        const smtp = yield* Smtp
        const sql = yield* SqlClient.SqlClient
        const alice = yield* person(1)
        const before = yield* count("github", "added")
        yield* events.added({
          userId: alice.userId,
          method: "github",
          origin: "email_match",
          label: "alice-gh",
          device
        })

        const rows = yield* events.ofUser(alice.userId)
        expect(rows.map((r) => [r.change, r.method, r.origin, r.label])).toEqual([
          ["added", "github", "email_match", "alice-gh"]
        ])
        // The device is kept only as keyed hashes: neither the address nor the User-Agent is in the row.
        const [stored] = yield* sql<{ ip_hash: string; user_agent_hash: string }>`
          SELECT ip_hash, user_agent_hash FROM credential_events WHERE user_id = ${alice.userId}
        `
        expect(stored?.ip_hash).toMatch(/^[A-Za-z0-9_-]{43}$/)
        expect(stored?.user_agent_hash).toMatch(/^[A-Za-z0-9_-]{43}$/)
        expect(stored?.ip_hash).not.toContain("203.0.113.7")

        const mails = smtp.mails().filter((m) => m.to === alice.email)
        expect(mails).toHaveLength(1)
        const mail = mails[0]
        expect(mail?.subject).toBe("A sign-in method was added to your Signalman account")
        expect(mail?.text).toContain("GitHub (alice-gh) was linked to your Signalman account")
        expect(mail?.text).toContain("Device: Firefox on Linux")
        expect(mail?.text).toMatch(/When: \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/)
        expect(mail?.text).toContain("https://signalman.example/settings/account")
        expect(yield* count("github", "added")).toBe(before + 1)
      })
    )

    it.effect("a passkey added by a signed-in person is named by its label in the mail", () =>
      Effect.gen(function* () {
        const events = yield* CredentialEvents
        const smtp = yield* Smtp
        const bob = yield* person(1)
        yield* events.added({
          userId: bob.userId,
          method: "passkey",
          origin: "session",
          label: "Work laptop",
          device: {}
        })
        const [mail] = smtp.mails().filter((m) => m.to === bob.email)
        expect(mail?.text).toContain('The passkey "Work laptop" was added to your Signalman account')
        // No User-Agent, no device line: the mail says only what it knows.
        expect(mail?.text).not.toContain("Device:")
      })
    )

    it.effect("removed records and mails the removal and signs out every other session, keeping the asking one", () =>
      Effect.gen(function* () {
        const events = yield* CredentialEvents
        const sessions = yield* Sessions
        const smtp = yield* Smtp
        const carol = yield* person(3)
        const other = yield* person(1)
        const [keep] = carol.sessionIds
        if (keep === undefined) return yield* Effect.dieMessage("no session")
        const before = yield* count("google", "removed")
        yield* events.removed({
          userId: carol.userId,
          method: "google",
          origin: "session",
          label: "carol@gmail.example",
          device,
          keepSessionId: keep
        })
        expect((yield* sessions.list(carol.userId)).map((s) => s.id)).toEqual([keep])
        // Another person's sessions are untouched.
        expect(yield* sessions.list(other.userId)).toHaveLength(1)
        expect((yield* events.ofUser(carol.userId)).map((r) => r.change)).toEqual(["removed"])
        const [mail] = smtp.mails().filter((m) => m.to === carol.email)
        expect(mail?.subject).toBe("A sign-in method was removed from your Signalman account")
        expect(mail?.text).toContain("Google (carol@gmail.example) was removed from your Signalman account")
        expect(mail?.text).toContain("Every other session of your account was signed out.")
        expect(yield* count("google", "removed")).toBe(before + 1)
      })
    )

    it.effect("inside the deletion grace window the change is recorded and counted, and no mail is sent", () =>
      Effect.gen(function* () {
        const events = yield* CredentialEvents
        const smtp = yield* Smtp
        const sql = yield* SqlClient.SqlClient
        const dave = yield* person(2)
        yield* sql`
          UPDATE users SET deleted_at = now(), purge_after = now() + interval '30 days' WHERE id = ${dave.userId}
        `
        yield* sql`
          UPDATE accounts SET deleted_at = now(), purge_after = now() + interval '30 days' WHERE id = ${dave.accountId}
        `
        const before = yield* count("passkey", "added")
        yield* events.added({ userId: dave.userId, method: "passkey", origin: "session", label: "Phone", device })
        const [keep] = dave.sessionIds
        if (keep === undefined) return yield* Effect.dieMessage("no session")
        yield* events.removed({
          userId: dave.userId,
          method: "passkey",
          origin: "session",
          label: "Phone",
          device,
          keepSessionId: keep
        })
        // `send` returns once the catcher has the mail, so nothing caught now means nothing was sent.
        expect(smtp.mails().filter((m) => m.to === dave.email)).toEqual([])
        expect((yield* events.ofUser(dave.userId)).map((r) => r.change)).toEqual(["removed", "added"])
        expect(yield* count("passkey", "added")).toBe(before + 1)
      })
    )

    it.effect("the rows go with the person when the account is purged", () =>
      Effect.gen(function* () {
        const events = yield* CredentialEvents
        const sql = yield* SqlClient.SqlClient
        const erin = yield* person(0)
        yield* events.added({ userId: erin.userId, method: "gitlab", origin: "signup", label: "erin", device })
        yield* sql`DELETE FROM users WHERE id = ${erin.userId}`
        const [left] = yield* sql<{ n: number }>`
          SELECT count(*)::int AS n FROM credential_events WHERE user_id = ${erin.userId}
        `
        expect(left?.n).toBe(0)
      })
    )
  })
})
