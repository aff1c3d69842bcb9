/**
 * The public status surface outside the JSON contract:
 *
 * - `GET /p/<slug>` and `GET /p/<slug>/incidents/<id>`: a page and its incident pages on the service's host;
 * - `GET /status` and `GET /status/incidents/<id>`: the single-tenant page (`status_page.default_slug`, else the
 *   only published page);
 * - on a page's custom domain (Host header): `GET /` and `GET /incidents/<id>`, and `/status...` redirects there;
 * - `GET /api/public/v1/incidents.rss` and `GET /api/public/v1/badge.svg` (the page by custom domain or `?page=`);
 * - `?fragment=1` on a page answers only its dynamic region, for the optional refresh script.
 *
 * All of them ask `PublicAccess` (the `PageGate`) and answer from the page's snapshot, rendering each answer once per
 * snapshot. Unknown, unpublished or foreign: 404; private without a viewer: 401.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as ApiError from "@signalman/core/ApiError"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { publicBaseUrl } from "../config/Config.js"
import { escapeHtml } from "../http/Html.js"
import type { Route } from "../http/RouteTable.js"
import type { PageGate } from "../viewers/PageGate.js"
import { signInPath, viewerFeed } from "./PrivateView.js"
import { type Admitted, admit, cacheControl, resolve } from "./PublicAccess.js"
import * as PublicAnswers from "./PublicAnswers.js"
import * as PublicBytes from "./PublicBytes.js"
import * as PublicHtml from "./PublicHtml.js"
import { hostOf, notFound, PublicSnapshot } from "./PublicSnapshot.js"

export const FEED_PATH = PublicAnswers.FEED_PATH
export const BADGE_PATH = PublicAnswers.BADGE_PATH

export const routes: ReadonlyArray<Route> = [
  { method: "GET", path: "/p/:slug", body: "none" },
  { method: "GET", path: "/p/:slug/incidents/:id", body: "none" },
  { method: "GET", path: "/status", body: "none" },
  { method: "GET", path: "/status/incidents/:id", body: "none" },
  { method: "GET", path: FEED_PATH, body: "none" },
  { method: "GET", path: BADGE_PATH, body: "none" },
  { method: "GET", path: PublicHtml.REFRESH_SCRIPT_PATH, body: "none" }
]

const HTML = "text/html; charset=utf-8"

const respond = (body: string, contentType: string, cache: string, extra: Record<string, string> = {}) =>
  HttpServerResponse.text(body, { contentType, headers: { "cache-control": cache, ...extra } })

const htmlError = (status: 401 | 404, lang = "en", signIn?: string) =>
  HttpServerResponse.text(
    `<!doctype html><html lang="${escapeHtml(lang)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${status === 404 ? "Not found" : "Sign in required"}</title></head><body><main><h1>${status === 404 ? "This status page does not exist" : "This status page is private"}</h1>${status === 401 ? (signIn === undefined ? "<p>Sign in to see it.</p>" : `<p><a href="${escapeHtml(signIn)}">Sign in</a> to see it.</p>`) : ""}</main></body></html>`,
    { status, contentType: HTML, headers: { "cache-control": "no-store", "content-security-policy": PublicHtml.CSP } }
  )

/** Answers a failure of the page lookup or the gate as an HTML page. */
const asHtml = <R>(
  effect: Effect.Effect<HttpServerResponse.HttpServerResponse, ApiError.ApiError, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, never, R> =>
  Effect.catchAll(effect, (error) =>
    Effect.succeed(error.status === 401 ? htmlError(401, "en", signInPath(error)) : htmlError(404))
  )

/** Error answers of the feed and the badge (rendered as the envelope further out) are not cached. */
const errorsNotCached = HttpApp.appendPreResponseHandler((_, response) =>
  Effect.succeed(
    response.headers["cache-control"] === undefined
      ? HttpServerResponse.setHeader(response, "cache-control", "no-store")
      : response
  )
)

const isFragment = (params: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>) =>
  params["fragment"] === "1"

const one = (params: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>, key: string) => {
  const value = params[key]
  return typeof value === "string" ? value : undefined
}

/** Sends `encoded` with the Cache-Control of the admission, its ETag, 304 and compressed variants. */
const send = (admitted: Admitted, request: HttpServerRequest.HttpServerRequest, encoded: PublicBytes.Encoded) =>
  PublicBytes.toResponse(
    PublicBytes.answer(encoded, PublicBytes.conditionsOf(request.headers), cacheControl(admitted.admission))
  )

/** Serves a page's HTML (or its fragment) at `base`. */
const pageHtml = (
  admitted: Admitted,
  request: HttpServerRequest.HttpServerRequest,
  base: string,
  fragmentOnly: boolean
) =>
  Effect.gen(function* () {
    const snapshots = yield* PublicSnapshot
    const snapshot = yield* snapshots.snapshot(admitted.page)
    return send(admitted, request, PublicAnswers.pageHtml(snapshot, base, fragmentOnly, viewerFeed(admitted)))
  })

/** Serves an incident's page at `<base>/incidents/<id>`; an incident not on the page is 404. */
const incidentHtml = (admitted: Admitted, request: HttpServerRequest.HttpServerRequest, base: string, id: string) =>
  Effect.gen(function* () {
    const snapshots = yield* PublicSnapshot
    const snapshot = yield* snapshots.snapshot(admitted.page)
    const incident = snapshot.incidents.find((i) => i.id === id.toLowerCase())
    if (incident === undefined) return yield* Effect.fail(notFound)
    return send(admitted, request, PublicAnswers.incidentHtml(snapshot, base, incident, viewerFeed(admitted)))
  })

const redirect = (location: string) =>
  HttpServerResponse.empty({ status: 301, headers: { location, "cache-control": "public, max-age=300" } })

const INCIDENT_ON_HOST = /^\/incidents\/([^/]+)\/?$/
const STATUS_INCIDENT = /^\/status\/incidents\/([^/]+)\/?$/

/** What a request on a custom host asks for, when it is one of the paths a custom domain serves. */
const customDomainPath = (url: string) => {
  const q = url.indexOf("?")
  const pathname = q === -1 ? url : url.slice(0, q)
  const incident = INCIDENT_ON_HOST.exec(pathname)
  const statusIncident = STATUS_INCIDENT.exec(pathname)
  const isPage = pathname === "/"
  const isStatus = pathname === "/status" || pathname === "/status/"
  if (!isPage && incident === null && !isStatus && statusIncident === null) return undefined
  return { search: q === -1 ? "" : url.slice(q), incident, isStatus, statusIncident }
}

/**
 * On a page's custom domain, `/` and `/incidents/<id>` are the page, and `/status` redirects to `/`. Requests to
 * any other host, and other paths, go on to the router unchanged.
 *
 * This runs before every request of the API, so the common case (the service's own host, or a path a custom
 * domain does not serve) is decided synchronously and hands the request on as it is: no generator and no
 * context provided, which would copy the whole service context per request.
 */
export const customDomain = HttpApiBuilder.middleware(
  Effect.map(
    Effect.context<PublicSnapshot | PageGate>(),
    (context) =>
      (app: HttpApp.Default): HttpApp.Default<never, HttpServerRequest.HttpServerRequest> => {
        const snapshots = Context.get(context, PublicSnapshot)
        const onCustomHost = (
          request: HttpServerRequest.HttpServerRequest,
          host: string,
          wanted: NonNullable<ReturnType<typeof customDomainPath>>
        ) =>
          Effect.gen(function* () {
            const page = yield* snapshots.byHost(host)
            if (page === undefined) return yield* app
            if (wanted.isStatus) return redirect(`/${wanted.search}`)
            if (wanted.statusIncident !== null) return redirect(`/incidents/${wanted.statusIncident[1]}`)
            const params = new URLSearchParams(wanted.search)
            return yield* asHtml(
              Effect.gen(function* () {
                const admitted = yield* admit(page, request)
                return wanted.incident === null
                  ? yield* pageHtml(admitted, request, "", params.get("fragment") === "1")
                  : yield* incidentHtml(admitted, request, "", decodeURIComponent(wanted.incident[1] ?? ""))
              }).pipe(Effect.provide(context))
            )
          })
        return Effect.withFiberRuntime((fiber) => {
          const request = Context.unsafeGet(fiber.currentContext, HttpServerRequest.HttpServerRequest)
          if (request.method !== "GET" && request.method !== "HEAD") return app
          const host = hostOf(request.headers["host"])
          if (host === undefined || host === snapshots.baseHost) return app
          const wanted = customDomainPath(request.url)
          return wanted === undefined ? app : onCustomHost(request, host, wanted)
        })
      }
  )
)

export const layer = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const snapshots = yield* PublicSnapshot
    const base = yield* publicBaseUrl
    const context = yield* Effect.context<PublicSnapshot | PageGate>()
    const get = <E>(
      path: HttpRouter.PathInput,
      handler: Effect.Effect<
        HttpServerResponse.HttpServerResponse,
        E,
        PublicSnapshot | PageGate | HttpRouter.HttpRouter.Provided
      >
    ) => router.get(path, Effect.provide(handler, context))

    const bySlug = (slug: string | undefined) =>
      Effect.flatMap(slug === undefined ? Effect.succeed(undefined) : snapshots.bySlug(slug), (page) =>
        page === undefined ? Effect.fail(notFound) : Effect.succeed(page)
      )

    yield* get(
      "/p/:slug",
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const { slug } = yield* HttpRouter.params
        const search = yield* HttpServerRequest.ParsedSearchParams
        return yield* asHtml(
          Effect.gen(function* () {
            const page = yield* bySlug(slug)
            const admitted = yield* admit(page, request)
            return yield* pageHtml(admitted, request, `/p/${page.slug}`, isFragment(search))
          })
        )
      })
    )

    yield* get(
      "/p/:slug/incidents/:id",
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const { id, slug } = yield* HttpRouter.params
        return yield* asHtml(
          Effect.gen(function* () {
            const page = yield* bySlug(slug)
            const admitted = yield* admit(page, request)
            return yield* incidentHtml(admitted, request, `/p/${page.slug}`, id ?? "")
          })
        )
      })
    )

    const defaultPage = Effect.flatMap(snapshots.defaultPage, (page) =>
      page === undefined ? Effect.fail(notFound) : Effect.succeed(page)
    )

    yield* get(
      "/status",
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const search = yield* HttpServerRequest.ParsedSearchParams
        return yield* asHtml(
          Effect.gen(function* () {
            const admitted = yield* admit(yield* defaultPage, request)
            return yield* pageHtml(admitted, request, "/status", isFragment(search))
          })
        )
      })
    )

    yield* get(
      "/status/incidents/:id",
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const { id } = yield* HttpRouter.params
        return yield* asHtml(
          Effect.gen(function* () {
            const admitted = yield* admit(yield* defaultPage, request)
            return yield* incidentHtml(admitted, request, "/status", id ?? "")
          })
        )
      })
    )

    yield* get(
      FEED_PATH,
      Effect.gen(function* () {
        yield* errorsNotCached
        const request = yield* HttpServerRequest.HttpServerRequest
        const search = yield* HttpServerRequest.ParsedSearchParams
        const admitted = yield* resolve(request, one(search, "page"), true)
        const snapshot = yield* snapshots.snapshot(admitted.page)
        const onHost =
          admitted.page.customDomain !== null &&
          hostOf(request.headers["host"]) === admitted.page.customDomain.toLowerCase()
        const origin = onHost ? `https://${admitted.page.customDomain}` : base
        const pageBase = onHost ? "" : `/p/${admitted.page.slug}`
        return send(admitted, request, PublicAnswers.feed(snapshot, origin, pageBase))
      })
    )

    yield* get(
      BADGE_PATH,
      Effect.gen(function* () {
        yield* errorsNotCached
        const request = yield* HttpServerRequest.HttpServerRequest
        const search = yield* HttpServerRequest.ParsedSearchParams
        const admitted = yield* resolve(request, one(search, "page"))
        const snapshot = yield* snapshots.snapshot(admitted.page)
        const component = one(search, "component")
        const encoded = PublicAnswers.badge(snapshot, component)
        if (encoded === undefined) {
          return yield* Effect.fail(ApiError.make("NOT_FOUND", "No such component on this page"))
        }
        return send(admitted, request, encoded)
      })
    )

    yield* get(
      PublicHtml.REFRESH_SCRIPT_PATH,
      Effect.succeed(respond(PublicHtml.refreshScript, "text/javascript; charset=utf-8", "public, max-age=3600"))
    )
  })
)
