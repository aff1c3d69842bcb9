/**
 * Limits hold across server processes that share one PostgreSQL: the rate budget and revocations.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Http from "../support/Http.js"
import { bearer, mintToken, signIn } from "../support/Identity.js"
import * as SmtpCatcher from "../support/SmtpCatcher.js"
import * as TestDatabase from "../support/TestDatabase.js"
import * as TestServer from "../support/TestServer.js"

describe("two API processes on one PostgreSQL", () => {
  it.scopedLive("together they admit exactly the account's per-minute budget, no more", () =>
    Effect.gen(function* () {
      const smtp = yield* SmtpCatcher.make
      const db = yield* TestDatabase.acquire
      const env = { MAIL__SMTP_URL: smtp.url, AUTH__MAGIC_LINK__RATE_LIMIT_SECONDS: "0", PLAN_CACHE_TTL_SECS: "1" }
      const one = yield* TestServer.start(env, db)
      const two = yield* TestServer.start(env, db)
      const alice = yield* signIn(one, smtp)
      const token = yield* mintToken(alice)
      yield* one.sql`UPDATE plans SET api_reads_per_minute = 20 WHERE id = 'free'`
      yield* Effect.sleep("1100 millis")
      // Both processes warm their plan caches, then the minute starts over for a clean count.
      const now = Date.now()
      yield* Effect.sleep(`${Math.max(0, 60_000 - (now % 60_000)) < 20_000 ? 60_000 - (now % 60_000) + 100 : 0} millis`)
      const replies = yield* Effect.forEach(
        Array.from({ length: 60 }, (_, i) => i),
        (i) => bearer(i % 2 === 0 ? one : two, token.token, "/api/v1/me"),
        { concurrency: 10 }
      )
      const ok = replies.filter((r) => r.status === 200).length
      const limited = replies.filter((r) => r.status === 429)
      expect(ok).toBe(20)
      expect(limited).toHaveLength(40)
      expect(Http.envelope(limited[0]!).code).toBe("RATE_LIMITED")
    })
  )

  it.scopedLive("a token revoked through one process stops working in the other at once", () =>
    Effect.gen(function* () {
      const smtp = yield* SmtpCatcher.make
      const db = yield* TestDatabase.acquire
      const env = { MAIL__SMTP_URL: smtp.url, AUTH__MAGIC_LINK__RATE_LIMIT_SECONDS: "0" }
      const one = yield* TestServer.start(env, db)
      const two = yield* TestServer.start(env, db)
      const alice = yield* signIn(one, smtp)
      const token = yield* mintToken(alice)
      // The other process verifies and caches the token (for 10 s: ApiTokens' cache)...
      const cachedFrom = Date.now()
      expect((yield* bearer(two, token.token, "/api/v1/me")).status).toBe(200)
      expect((yield* alice.browser.request(`/api/v1/me/api-tokens/${token.id}`, { method: "DELETE" })).status).toBe(204)
      // ...and drops it on the notification, within that lifetime: a 401 answered before the cached entry could
      // have expired came from the notification. (Bounded by the cache's life, not a guess of how fast it is.)
      const until = cachedFrom + 9_000
      let status = 200
      while (status === 200 && Date.now() < until) {
        status = (yield* bearer(two, token.token, "/api/v1/me")).status
        if (status === 200) yield* Effect.sleep("50 millis")
      }
      const answeredAt = Date.now()
      expect(status).toBe(401)
      expect(answeredAt - cachedFrom).toBeLessThan(10_000)
    })
  )
})
