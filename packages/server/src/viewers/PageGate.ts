/**
 * Who may read a status page's public surface. A public page admits everyone; a private (protected) page admits
 * only a signed-in viewer, or on the feed, a viewer's own link or the page-password link. The public surface asks
 * here and nowhere else, so every public route (HTML, JSON, RSS, badge, history) applies the same rule.
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as ApiError from "@signalman/core/ApiError"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/** What the gate needs to know about the page being served. */
export interface PageRef {
  readonly id: string
  /** `access.protected` of the stored page. */
  readonly isProtected: boolean
}

/**
 * The answer: anyone may read it (cacheable, `public, max-age=10, stale-while-revalidate=30`), or a viewer was
 * admitted (answer `private, no-store`). `viewerId` is null for a device signed in with the page password;
 * `feedUrl` is the feed link this viewer may use (their own, or the page-password link), shown on their page.
 */
export type Admission =
  | { readonly _tag: "Public" }
  | { readonly _tag: "Viewer"; readonly viewerId: string | null; readonly feedUrl: string | null }

export interface Options {
  /** The RSS feed also answers `?viewer=&t=` (a viewer's own link) and `?t=` (the page-password link). */
  readonly feed: boolean
}

export class PageGate extends Context.Tag("viewers/PageGate")<
  PageGate,
  {
    readonly admit: (
      page: PageRef,
      request: HttpServerRequest.HttpServerRequest,
      options: Options
    ) => Effect.Effect<Admission, ApiError.Unauthorized>
  }
>() {}

export const signInRequired = ApiError.make("PAGE_SIGN_IN_REQUIRED", "This status page is private: sign in to see it.")

/** The 401 of a known private page: `details.sign_in_url` says where its sign-in is. */
export const signInRequiredAt = (signInUrl: string) =>
  ApiError.make("PAGE_SIGN_IN_REQUIRED", "This status page is private: sign in to see it.", {
    details: { sign_in_url: signInUrl }
  })

/** The sign-in link a 401 carries, if any. */
export const signInUrlOf = (error: ApiError.ApiError): string | undefined => {
  const url = error.details["sign_in_url"]
  return typeof url === "string" ? url : undefined
}

/**
 * Public pages only: a protected page answers 401 to everyone. The private-page viewer sign-in replaces this with
 * the layer that knows viewer sessions and feed links.
 */
export const publicOnly = Layer.succeed(PageGate, {
  admit: (page) => (page.isProtected ? Effect.fail(signInRequired) : Effect.succeed({ _tag: "Public" } as const))
})
