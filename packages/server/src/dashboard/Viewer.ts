/**
 * Who is looking at a dashboard page: the session cookie, its user, their orgs and the org the session acts on, as
 * the same `Caller` the API's middleware makes for a session, so a page reads through the same services (with the
 * same authorization) as the API. The active org is the session's, else the user's first, exactly as the API
 * decides it for a session without `X-Signalman-Org`.
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type { CallerShape } from "@signalman/core/api/Authentication"
import * as Effect from "effect/Effect"
import { Accounts } from "../accounts/Accounts.js"
import type { MembershipRow, UserRow } from "../accounts/Repo.js"
import { COOKIE, Sessions } from "../auth/Sessions.js"
import { readCookie } from "../infra/Cookies.js"

/** A signed-in person on a page. */
export interface Viewer {
  readonly user: UserRow
  readonly sessionId: string
  readonly memberships: ReadonlyArray<MembershipRow>
  /** The org the pages act on; undefined for someone in no org (their last one was deleted). */
  readonly org: MembershipRow | undefined
  readonly caller: CallerShape
}

export class Viewers extends Effect.Service<Viewers>()("Signalman/DashboardViewers", {
  effect: Effect.gen(function* () {
    const sessions = yield* Sessions
    const accounts = yield* Accounts

    /** The viewer of a request, or undefined when it carries no live session. */
    const of = (request: HttpServerRequest.HttpServerRequest) =>
      Effect.gen(function* () {
        const cookie = readCookie(request.headers["cookie"], COOKIE)
        const session = cookie === undefined ? undefined : yield* sessions.live(cookie)
        if (session === undefined) return undefined
        const user = yield* accounts.byId(session.user_id)
        if (user === undefined) return undefined
        yield* sessions.touch(session)
        const memberships = yield* accounts.memberships(user.id)
        const org =
          (session.active_org_id === null ? undefined : memberships.find((m) => m.id === session.active_org_id)) ??
          memberships[0]
        const caller: CallerShape = {
          user: {
            id: user.id,
            email: user.email,
            accountId: user.account_id,
            emailVerified: user.email_verified_at !== null,
            deleted: user.deleted_at !== null
          },
          credential: { kind: "session", sessionId: session.id },
          org: org === undefined ? null : { id: org.id, slug: org.slug, accountId: org.account_id, role: org.role }
        }
        const viewer: Viewer = { user, sessionId: session.id, memberships, org, caller }
        return viewer
      })

    /** Makes another of the viewer's orgs the one the session acts on; false when they are not in it. */
    const switchOrg = (viewer: Viewer, slug: string) =>
      Effect.gen(function* () {
        const target = viewer.memberships.find((m) => m.slug === slug)
        if (target === undefined) return false
        yield* sessions.setActiveOrg(viewer.sessionId, target.id)
        return true
      })

    return { of, switchOrg }
  }),
  dependencies: [Sessions.Default, Accounts.Default]
}) {}
