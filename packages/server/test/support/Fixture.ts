/**
 * The e2e fixture: one running server for a whole test file (started before its first test, stopped after its
 * last), a mail catcher it sends through, and a freshly signed-in person for each test.
 *
 * Tests on one server stay independent by each working as a person of their own: a new account with its own org,
 * session and API token, so nothing one test makes is in another's lists or counts. What is global to a server
 * (settings, plan rows, lists read at boot) is fixed for the whole file: a file passes the settings its tests need
 * to `describe`, and tests that need settings the others must not have go in a `describe` block of their own,
 * which starts a server of its own.
 *
 * ```ts
 * Fixture.describe(`channels (${TestDatabase.kind} database)`, { env: { PLAN_CACHE_TTL_SECS: "1" } }, (it) => {
 *   it.effect("create is 201", () =>
 *     Effect.gen(function* () {
 *       const alice = yield* Fixture.person()
 *       const created = Http.expectOk(yield* alice.browser.request("/api/v1/channels", { json }), Channel, 201)
 *     })
 *   )
 * })
 * ```
 */
import { layer as shared, type Vitest } from "@effect/vitest"
import { type AccountId, Me, type OrgMembership, type UserId } from "@signalman/core/Identity"
import type { PlanId } from "@signalman/core/Plan"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as Http from "./Http.js"
import * as Identity from "./Identity.js"
import * as SmtpCatcher from "./SmtpCatcher.js"
import * as TestServer from "./TestServer.js"

/** A file's server settings. */
export interface Options {
  /** Settings in their environment spelling (`CHECKER__ALLOW_PRIVATE_TARGETS`), over the fixture's own. */
  readonly env?: Record<string, string>
  /**
   * Statements run once the server is up and before anyone signs in, for what is global to the server (plan
   * figures and flags): every test of the block runs with them, so a file says beside them which test needs them.
   */
  readonly sql?: ReadonlyArray<string>
}

export interface Running {
  readonly server: TestServer.Running
  readonly smtp: SmtpCatcher.SmtpCatcher
}

/** The running server and mail catcher of the enclosing `describe` block. */
export class Fixture extends Context.Tag("test/Fixture")<Fixture, Running>() {}

/** What tests of a `describe` block are given. */
export type Services = Fixture | TestServer.TestServer

/** The server of the enclosing block. */
export const server: Effect.Effect<TestServer.Running, never, Fixture> = Effect.map(Fixture, (f) => f.server)

/** The mail catcher of the enclosing block. */
export const smtp: Effect.Effect<SmtpCatcher.SmtpCatcher, never, Fixture> = Effect.map(Fixture, (f) => f.smtp)

/**
 * Starts a server with its mail catcher, both stopped when the scope closes. A test that needs a second server
 * for a moment (settings its block's server must not have) starts one with this and provides it as `Fixture`.
 */
export const start = (options: Options = {}): Effect.Effect<Running, unknown, Scope.Scope> =>
  Effect.gen(function* () {
    const smtp = yield* SmtpCatcher.make
    const server = yield* TestServer.start({
      MAIL__SMTP_URL: smtp.url,
      // Every test signs its people in by mail, many to one server: no wait between two mails to one address.
      AUTH__MAGIC_LINK__RATE_LIMIT_SECONDS: "0",
      ...options.env
    })
    for (const statement of options.sql ?? []) yield* server.sql.unsafe(statement)
    return { server, smtp }
  })

/**
 * A server with its mail catcher, as a layer. `options` may be an effect, for settings that name resources the
 * file makes first (fake receivers whose URLs the server is configured with).
 */
export const layer = <R = never>(
  options: Options | Effect.Effect<Options, never, R | Scope.Scope> = {}
): Layer.Layer<Services, unknown, Exclude<R, Scope.Scope>> =>
  Layer.scopedContext(
    Effect.gen(function* () {
      const running = yield* start(Effect.isEffect(options) ? yield* options : options)
      return Context.make(Fixture, running).pipe(Context.add(TestServer.TestServer, running.server))
    })
  )

/** The tests of a block, given `it` whose `effect` and `scoped` run on the live clock with the block's services. */
export type Tests<R = Services> = (it: Vitest.MethodsNonLive<R, true>) => void

// The server runs on the live clock: it has workers that sleep, and tests poll it with `Eventually`.
const live = { excludeTestServices: true } as const

/** A `describe` block whose tests share one server, started with the fixture's settings and `options`. */
export function describe(name: string, tests: Tests): void
export function describe(name: string, options: Options, tests: Tests): void
export function describe(name: string, first: Options | Tests, second?: Tests): void {
  if (typeof first === "function") {
    shared(layer(), live)(name, first)
  } else if (second === undefined) {
    throw new Error(`describe ${name}: no tests`)
  } else {
    shared(layer(first), live)(name, second)
  }
}

/** A `describe` block on a layer of the file's own: `layer` built on resources the file makes for its server. */
export const describeWith = <R, E>(name: string, server: Layer.Layer<R, E>, tests: Tests<R>): void =>
  shared(server, live)(name, tests)

/** A signed-in person: a new account with its own org, a browser session and an API token bound to the org. */
export interface Person extends Identity.Person {
  readonly userId: UserId
  readonly accountId: AccountId
  /** The org made for the account at sign-up, the one requests act on. */
  readonly org: OrgMembership
  /** A `full_access` token bound to `org` (it counts towards the account's `max_api_tokens_per_user`). */
  readonly token: string
  /** A request with the API token, as a script or the CLI sends it; `json` sends a JSON body. */
  readonly api: (path: string, init?: RequestInit & { readonly json?: unknown }) => Effect.Effect<Http.Reply>
}

export interface PersonOptions {
  /** Names the address (`<label>-<unique>@example.com`). */
  readonly label?: string
  /** The address to sign in with, instead of a new one. */
  readonly email?: string
  /** The account's plan, set before any request has read (and cached) it. */
  readonly plan?: PlanId
}

/** Signs a new person in on the block's server through the real magic-link flow. */
export const person = (options: PersonOptions = {}): Effect.Effect<Person, never, Fixture> =>
  Effect.gen(function* () {
    const { server, smtp } = yield* Fixture
    const email = options.email ?? Identity.uniqueEmail(options.label ?? "user")
    const signedIn = yield* Identity.signIn(server, smtp, email)
    // Signing in reads no plan; the first /api/v1 request below does, and the plan cache keeps what it read.
    if (options.plan !== undefined) {
      yield* server.sql`
        UPDATE accounts SET plan_id = ${options.plan}
        WHERE id = (SELECT account_id FROM users WHERE email = ${email})
      `.pipe(Effect.orDie)
    }
    const me = Http.expectOk(yield* signedIn.browser.request("/api/v1/me"), Me)
    const org = me.active_org ?? me.orgs[0]
    if (org === undefined) return yield* Effect.dieMessage(`${email} has no org`)
    const { token } = yield* Identity.mintToken(signedIn, { name: "fixture", org_id: org.id })
    return {
      ...signedIn,
      userId: me.id,
      accountId: me.account_id,
      org,
      token,
      api: (path, init) => Identity.bearer(server, token, path, init)
    }
  })
