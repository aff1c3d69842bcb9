/**
 * One autocannon run against a running server, every answer checked (status and body), as the benchmarks that
 * measure requests per second share it (`run.ts`, `tracing-cost.ts`).
 */
import autocannon from "autocannon"
import type { Running } from "./children.js"

/** The load every request benchmark applies: 50 connections, no pipelining. */
export const CONNECTIONS = 50
export const PIPELINING = 1
// autocannon stops itself after `duration`; this is the backstop should it not.
const RUN_SLACK_MS = 30_000

/** What one autocannon run aims at: a path on a running server and what every answer to it must be. */
export interface Subject<Name extends string = string> {
  readonly name: Name
  readonly running: Running
  readonly path: string
  /** Sent with every request (the bearer token of `me`). */
  readonly headers?: Readonly<Record<string, string>>
  readonly status: number
  /** Applied by autocannon to every response body: an exact string when the body is constant, else a predicate. */
  readonly body: { readonly exact: string } | { readonly verify: (body: string) => boolean }
}

export interface Run {
  /** The subject's name. */
  readonly target: string
  readonly path: string
  readonly kind: "warmup" | "measured"
  readonly round: number
  readonly durationSecs: number
  /** autocannon's Req/Sec average: the mean of its one-second samples. */
  readonly rps: number
  readonly requests: number
  readonly latencyMs: { readonly p50: number; readonly p99: number; readonly mean: number; readonly max: number }
  readonly ok2xx: number
  readonly non2xx: number
  /** The status every response must have, how many had it, and how many had another (each one a failure). */
  readonly expectedStatus: number
  readonly answered: number
  readonly wrongStatus: number
  /** Responses by status code, so a failed run says whether it met 429s, 500s or something else. */
  readonly statuses: Readonly<Record<string, number>>
  readonly errors: number
  readonly timeouts: number
  readonly mismatches: number
}

// Counted by status rather than by 2xx, since the full-pipeline route must answer 404 and a 2xx there is wrong.
export const failures = (run: Run): number => run.wrongStatus + run.errors + run.timeouts + run.mismatches

export const load = (subject: Subject, kind: Run["kind"], round: number, seconds: number): Promise<Run> =>
  new Promise((resolve, reject) => {
    const backstop = setTimeout(
      () => {
        instance.stop()
        reject(new Error(`autocannon against ${subject.name} did not finish within ${seconds}s + slack`))
      },
      seconds * 1_000 + RUN_SLACK_MS
    )
    const { body } = subject
    const instance = autocannon(
      {
        url: `${subject.running.origin}${subject.path}`,
        ...(subject.headers === undefined ? {} : { headers: { ...subject.headers } }),
        connections: CONNECTIONS,
        pipelining: PIPELINING,
        duration: seconds,
        timeout: 10,
        // A body check per response, so a server answering something else cannot pass as fast. autocannon hands
        // the body over as a string; anything else is a mismatch rather than a guess.
        ...("exact" in body
          ? { expectBody: body.exact }
          : { verifyBody: (received: unknown) => typeof received === "string" && body.verify(received) })
      },
      (error: unknown, result) => {
        clearTimeout(backstop)
        if (error !== null && error !== undefined) {
          reject(error instanceof Error ? error : new Error(String(error)))
          return
        }
        // autocannon 8 always fills statusCodeStats; were it missing, nothing counts as answered and the run fails.
        const byStatus = Object.entries(result.statusCodeStats ?? {})
        const responses = byStatus.reduce((sum, [, stats]) => sum + (stats.count ?? 0), 0)
        const answered = byStatus.find(([code]) => Number(code) === subject.status)?.[1].count ?? 0
        resolve({
          target: subject.name,
          path: subject.path,
          kind,
          round,
          durationSecs: result.duration,
          rps: result.requests.average,
          requests: result.requests.total,
          latencyMs: {
            p50: result.latency.p50,
            p99: result.latency.p99,
            mean: result.latency.mean,
            max: result.latency.max
          },
          ok2xx: result["2xx"],
          non2xx: result.non2xx,
          expectedStatus: subject.status,
          answered,
          wrongStatus: responses - answered,
          statuses: Object.fromEntries(byStatus.map(([code, stats]) => [code, stats.count ?? 0])),
          errors: result.errors,
          timeouts: result.timeouts,
          mismatches: result.mismatches
        })
      }
    )
  })

/**
 * Whether a `/me` body is the bench user's document, reached with the token (not a session): a JSON object whose
 * `email` is the bench address and whose `auth.kind` is `token`. Used on every response of the `/me` load, so it
 * stays cheap: one parse, a few property reads.
 */
export const isMeOf =
  (email: string) =>
  (body: string): boolean => {
    let parsed: unknown
    try {
      parsed = JSON.parse(body)
    } catch {
      return false
    }
    if (typeof parsed !== "object" || parsed === null) return false
    if (!("email" in parsed) || parsed.email !== email) return false
    const auth = "auth" in parsed ? parsed.auth : null
    return typeof auth === "object" && auth !== null && "kind" in auth && auth.kind === "token"
  }
