/**
 * Cache hits of public status pages answered by the node listener, before the Effect runtime (like `/healthz` and
 * the ping URLs): a busy page is read far more often than it changes, and once its snapshot is built and encoded an
 * answer is a map lookup and a write, which the fiber runtime, the router and the middleware would cost many times.
 *
 * Only a plain `GET` or `HEAD` of `/api/public/v1/status?page=<slug>`, `/p/<slug>` or `/p/<slug>?fragment=1` is
 * taken, and only when the page is published, not protected, and its lookup and snapshot are settled in memory and
 * within their window. Anything else (a private page, an unknown page, a miss, a stale entry, a custom domain not yet
 * looked up, any other query or path) goes to the Effect routes unchanged, which look up, build, and answer errors.
 *
 * The answer is the Effect route's own: the same bytes and headers from `PublicBytes.answer`, and the request id
 * `RequestPipeline` would give.
 */
import type * as Http from "node:http"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Liveness from "../http/Liveness.js"
import { chooseRequestId } from "../http/RequestContext.js"
import { PUBLIC_CACHE } from "./PublicAccess.js"
import * as PublicAnswers from "./PublicAnswers.js"
import * as PublicBytes from "./PublicBytes.js"
import { hostOf, type Page, PublicSnapshot, type Snapshot } from "./PublicSnapshot.js"

const STATUS_PATH = "/api/public/v1/status"
// Slugs as the router would pass them on untouched: anything percent-encoded or unusual goes the Effect way.
const SLUG = /^[A-Za-z0-9_-]{1,100}$/

/** Answers the fast path took, for tests that check both ways give the same answer. */
export const counters = { answered: 0 }

type Settled = PublicSnapshot["settled"]

/** What the request asks for, when it is one of the shapes taken here. */
const route = (
  url: string
):
  | { readonly kind: "status"; readonly slug: string }
  | { readonly kind: "html"; readonly slug: string; readonly fragment: boolean }
  | undefined => {
  const q = url.indexOf("?")
  const pathname = q === -1 ? url : url.slice(0, q)
  const search = q === -1 ? undefined : url.slice(q + 1)
  if (pathname === STATUS_PATH) {
    if (search === undefined || !search.startsWith("page=")) return undefined
    const slug = search.slice(5)
    return SLUG.test(slug) ? { kind: "status", slug } : undefined
  }
  if (!pathname.startsWith("/p/")) return undefined
  const slug = pathname.slice(3)
  if (!SLUG.test(slug)) return undefined
  if (search === undefined) return { kind: "html", slug, fragment: false }
  return search === "fragment=1" ? { kind: "html", slug, fragment: true } : undefined
}

/** The public page of `slug` with its snapshot, when both are settled and fresh. */
const hit = (settled: Settled, slug: string, now: number): { page: Page; snapshot: Snapshot } | undefined => {
  const page = settled.bySlug(slug, now)
  if (page === undefined || page.isProtected) return undefined
  const snapshot = settled.snapshot(page, now)
  return snapshot === undefined ? undefined : { page, snapshot }
}

export const shortcut =
  (settled: Settled): Liveness.Shortcut =>
  (request, response) => {
    if (request.method !== "GET" && request.method !== "HEAD") return false
    const wanted = route(request.url ?? "")
    if (wanted === undefined) return false
    const now = Date.now()
    let encoded: PublicBytes.Encoded
    if (wanted.kind === "status") {
      // On a page's custom domain the host names the page, whatever `?page` says: only a host known to be no
      // page's domain is taken here.
      const onHost = settled.byHost(hostOf(request.headers.host), now)
      if (onHost === undefined || onHost.page !== undefined) return false
      const found = hit(settled, wanted.slug, now)
      if (found === undefined) return false
      encoded = PublicAnswers.status(found.snapshot)
    } else {
      const found = hit(settled, wanted.slug, now)
      if (found === undefined) return false
      encoded = PublicAnswers.pageHtml(found.snapshot, `/p/${found.page.slug}`, wanted.fragment)
    }
    send(request, response, PublicBytes.answer(encoded, PublicBytes.conditionsOf(request.headers), PUBLIC_CACHE))
    counters.answered++
    return true
  }

const send = (request: Http.IncomingMessage, response: Http.ServerResponse, answer: PublicBytes.Answer) => {
  const header = request.headers["x-request-id"]
  const raw = answer.raw.slice()
  raw.push("x-request-id", chooseRequestId(typeof header === "string" ? header : undefined))
  response.writeHead(answer.status, raw)
  response.end(request.method === "HEAD" ? undefined : answer.body)
}

/** Mounts the fast path on the server's listener, reading the same snapshots as the Effect routes. */
export const layer = (server: Liveness.Server): Layer.Layer<never, never, PublicSnapshot> =>
  Layer.effectDiscard(Effect.map(PublicSnapshot, (snapshots) => server.shortcut(shortcut(snapshots.settled))))
