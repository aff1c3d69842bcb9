/**
 * The HTTP series: each request the router answers, counted by its route template, method and status, its duration
 * observed. Wrapped around the request pipeline only when metrics are enabled; otherwise the pipeline is served as
 * it is, and a request pays nothing for metrics.
 *
 * Answers the listener gives itself before the router (`GET /healthz`, ping URLs, cached public pages) are not
 * seen here; docs/operations.md says so.
 */
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type { Recorder } from "./Metrics.js"
import type { RouteTemplates } from "./RouteTemplates.js"

const pathnameOf = (url: string): string => {
  const q = url.indexOf("?")
  return q === -1 ? url : url.slice(0, q)
}

/** The status a failed exit is answered with: the platform answers a defect 500 (an interruption: the client left). */
const failedStatus = (exit: Exit.Exit<unknown, unknown>): number | undefined =>
  Exit.isInterrupted(exit) ? undefined : 500

/**
 * `inner` (the request pipeline), measured by `recorder` when it is enabled; `inner` itself when not.
 */
export const middleware =
  <R>(
    recorder: Recorder,
    templates: RouteTemplates,
    inner: (app: HttpApp.Default) => HttpApp.Default<never, R>
  ): ((app: HttpApp.Default) => HttpApp.Default<never, R>) =>
  (app) => {
    const served = inner(app)
    if (!recorder.enabled) return served
    return Effect.withFiberRuntime((fiber) => {
      const request = Context.unsafeGet(fiber.currentContext, HttpServerRequest.HttpServerRequest)
      const started = performance.now()
      return Effect.onExit(served, (exit) =>
        Effect.sync(() => {
          const status = Exit.isSuccess(exit) ? exit.value.status : failedStatus(exit)
          if (status === undefined) return
          const route = templates.of(pathnameOf(request.url))
          recorder.request(route, request.method, status, (performance.now() - started) / 1000)
        })
      )
    })
  }
