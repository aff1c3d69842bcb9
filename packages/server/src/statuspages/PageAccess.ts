/**
 * An access write judged before anything is stored: the body checked for shape and its password hashed before any
 * lock (a malformed body waits for nothing and the slow hash holds no row), then judged against the stored page and
 * the plan by core's `StatusPage.resolveAccess`.
 */
import * as ApiError from "@signalman/core/ApiError"
import type * as Plan from "@signalman/core/Plan"
import * as StatusPage from "@signalman/core/StatusPage"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as PagePassword from "./PagePassword.js"
import type { PageRow } from "./Repo.js"

/** The access of a body as sent, and the hash of the password value it carries, if any. */
export interface Prepared {
  readonly raw: unknown
  readonly hash: string | undefined
}

/** What to store: the access object, and the new password hash if a value was sent. */
export interface Judged {
  readonly access: StatusPage.Access
  readonly hash: string | undefined
}

const fromEither = <A>(either: Either.Either<A, ApiError.ApiError>) =>
  Either.isLeft(either) ? Effect.fail(either.left) : Effect.succeed(either.right)

/** Checks the shape of a body's access and hashes its password value. */
export const prepare = (raw: unknown): Effect.Effect<Prepared, ApiError.ApiError> =>
  Effect.gen(function* () {
    if (raw === undefined || raw === null) return { raw, hash: undefined }
    const input = yield* fromEither(StatusPage.decodeAccess(raw))
    const hash = input.passwordValue === undefined ? undefined : yield* PagePassword.hash(input.passwordValue)
    return { raw, hash }
  })

/** Judges a prepared access write against the stored page (undefined: a new page) and the plan; undefined: leave it. */
export const judge = (
  prepared: Prepared,
  stored: PageRow | undefined,
  plan: Plan.Plan
): Effect.Effect<Judged | undefined, ApiError.ApiError> =>
  Effect.gen(function* () {
    const { raw } = prepared
    if (raw === undefined) return undefined
    if (raw === null) {
      if (stored === undefined || stored.access === null) return undefined
      return yield* Effect.fail(
        ApiError.make("ACCESS_INVALID", "A page once private keeps its access: send { protected: false } to open it", {
          field: "access"
        })
      )
    }
    const input = yield* fromEither(
      Either.flatMap(StatusPage.decodeAccess(raw), (decoded) =>
        StatusPage.resolveAccess(decoded, {
          passwordStored: prepared.hash !== undefined || stored?.password_hash != null,
          wasProtected: stored?.access?.protected === true,
          plan
        })
      )
    )
    return { access: input.access, hash: prepared.hash }
  })
