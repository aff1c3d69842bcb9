/**
 * The real `PageGate`: a public page admits everyone; a private page admits a browser holding a live viewer
 * session for it (email code or page password), and on the feed also a viewer's own link (`?viewer=&t=`) or the
 * page-password link (`?t=`). Anyone else is 401 PAGE_SIGN_IN_REQUIRED. The page password itself is never read
 * from a URL or header.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { publicBaseUrl } from "../config/Config.js"
import { readCookie } from "../infra/Cookies.js"
import { StatusPages } from "../statuspages/StatusPages.js"
import { type Admission, PageGate, signInRequired, signInRequiredAt } from "./PageGate.js"
import { cookieName, Viewers } from "./Viewers.js"

const queryOf = (url: string) => {
  const q = url.indexOf("?")
  return new URLSearchParams(q === -1 ? "" : url.slice(q + 1))
}

export const layer = Layer.effect(
  PageGate,
  Effect.gen(function* () {
    const pages = yield* StatusPages
    const viewers = yield* Viewers
    const base = yield* publicBaseUrl
    return {
      admit: (ref, request, options) =>
        Effect.gen(function* () {
          if (!ref.isProtected) return { _tag: "Public" } as const
          // The stored page decides: the public lookups are cached for a few seconds, and a page turned public again
          // serves everyone at once.
          const page = yield* pages.byId(ref.id)
          if (page === undefined) return yield* Effect.fail(signInRequired)
          if (page.access?.protected !== true) return { _tag: "Public" } as const
          const admitted = (viewerId: string | null): Admission => {
            const links = viewers.feedLinks(page, viewerId)
            return { _tag: "Viewer", viewerId, feedUrl: viewerId === null ? links.password : links.viewer }
          }
          const token = readCookie(request.headers["cookie"], cookieName(page.id))
          if (token !== undefined) {
            const signedIn = yield* viewers.session(page, token)
            if (Option.isSome(signedIn)) return admitted(signedIn.value)
          }
          if (options.feed) {
            const query = queryOf(request.url)
            const t = query.get("t")
            if (t !== null) {
              const linked = yield* viewers.feedLink(page, query.get("viewer") ?? undefined, t)
              if (Option.isSome(linked)) return admitted(linked.value)
            }
          }
          return yield* Effect.fail(signInRequiredAt(`${base}/p/${encodeURIComponent(page.slug)}/sign-in`))
        })
    }
  })
)
