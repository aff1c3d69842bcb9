/**
 * Which org a request names with `X-Signalman-Org` (auth-and-limits.md "Org binding"):
 *
 * - a malformed slug is 400 `ORG_HEADER_INVALID`, whatever the credential;
 * - a token bound to one org acts on that org only: a header naming any other well-formed slug is 403
 *   `ORG_HEADER_MISMATCH`, whether that slug is another org of the caller, someone else's org or no org at all, so
 *   the answer tells nothing about which orgs exist;
 * - an unbound token or a session may name any org it is a member of; an unknown slug and an org of someone else
 *   answer alike, 400 `ORG_HEADER_INVALID`, for the same reason.
 *
 * @since 0.2.0
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as ApiError from "./ApiError.js"
import type { OrgId } from "./Identity.js"
import { OrgSlug } from "./Identity.js"

/**
 * The header, as every answer names it in `field`.
 *
 * @since 0.2.0
 * @category constants
 */
export const HEADER = "X-Signalman-Org"

/**
 * What the rule needs of an org the caller belongs to.
 *
 * @since 0.2.0
 * @category models
 */
export interface Membership {
  readonly id: OrgId
  readonly slug: string
}

/**
 * The request's credential as far as the rule cares: a token bound to one org, or anything else (an unbound token
 * or a session, which may act on any org of the caller).
 *
 * @since 0.2.0
 * @category models
 */
export interface Binding {
  readonly boundOrgId: OrgId | null
}

const isSlug = Schema.is(OrgSlug)

const invalid = (message: string) => ApiError.make("ORG_HEADER_INVALID", message, { field: HEADER })

/**
 * The org the header names, among the caller's `memberships`; undefined when no header was sent (the credential's
 * own org then applies). Surrounding whitespace is not part of the slug.
 *
 * @since 0.2.0
 * @category resolution
 */
export const named = <M extends Membership>(
  header: string | undefined,
  binding: Binding,
  memberships: ReadonlyArray<M>
): Either.Either<M | undefined, ApiError.BadRequest | ApiError.Forbidden> => {
  if (header === undefined) return Either.right(undefined)
  const slug = header.trim()
  if (!isSlug(slug)) return Either.left(invalid(`${HEADER} is not an org slug`))
  if (binding.boundOrgId !== null) {
    const bound = memberships.find((m) => m.id === binding.boundOrgId)
    return bound !== undefined && bound.slug === slug
      ? Either.right(bound)
      : Either.left(
          ApiError.make("ORG_HEADER_MISMATCH", "This token is bound to one org and acts on no other", {
            field: HEADER
          })
        )
  }
  const found = memberships.find((m) => m.slug === slug)
  return found === undefined ? Either.left(invalid(`${HEADER} does not name an org of yours`)) : Either.right(found)
}
