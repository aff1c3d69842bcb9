/**
 * Which page a public request is for, and whether the asker may read it: the page of the custom domain the request
 * came to, else the page named by slug; unknown and unpublished pages are the uniform 404; then the `PageGate`.
 * Every public route (JSON, HTML, feed, badge) comes through here.
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Effect from "effect/Effect"
import { type Admission, PageGate } from "../viewers/PageGate.js"
import { hostOf, notFound, type Page, PublicSnapshot } from "./PublicSnapshot.js"

export const PUBLIC_CACHE = "public, max-age=10, stale-while-revalidate=30"
export const VIEWER_CACHE = "private, no-store"

/** The Cache-Control of an answer given to `admission`. */
export const cacheControl = (admission: Admission): string =>
  admission._tag === "Public" ? PUBLIC_CACHE : VIEWER_CACHE

export interface Admitted {
  readonly page: Page
  readonly admission: Admission
}

/** The page a request is for: its custom domain's, else the one named `slug`. */
export const pageFor = (request: HttpServerRequest.HttpServerRequest, slug: string | undefined) =>
  Effect.gen(function* () {
    const snapshots = yield* PublicSnapshot
    const onHost = yield* snapshots.byHost(hostOf(request.headers["host"]))
    if (onHost !== undefined) return onHost
    if (slug === undefined || slug === "") return yield* Effect.fail(notFound)
    const page = yield* snapshots.bySlug(slug)
    return page ?? (yield* Effect.fail(notFound))
  })

/** Admits the request to `page`, or fails 401 `PAGE_SIGN_IN_REQUIRED`. */
export const admit = (page: Page, request: HttpServerRequest.HttpServerRequest, feed = false) =>
  Effect.flatMap(PageGate, (gate) =>
    Effect.map(
      gate.admit({ id: page.id, isProtected: page.isProtected }, request, { feed }),
      (admission): Admitted => ({ page, admission })
    )
  )

/** `pageFor` then `admit`. */
export const resolve = (request: HttpServerRequest.HttpServerRequest, slug: string | undefined, feed = false) =>
  Effect.flatMap(pageFor(request, slug), (page) => admit(page, request, feed))
