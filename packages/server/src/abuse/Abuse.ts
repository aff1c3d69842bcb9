/**
 * Anti-abuse on every save and test of a check (auth-and-limits.md, Anti-abuse): a URL matching an
 * attack-reconnaissance pattern is 400 `URL_PATTERN_BLOCKED`, a name under a denied domain 400
 * `DOMAIN_DENYLISTED`, each naming the field and recorded in the audit log as `abuse_blocked`.
 *
 * The rules sit in a `Ref` and are swapped whole, so a check sees the old rules or the new, never a mix. SIGHUP
 * re-reads the lists when `abuse.hot_reload_enabled` is on; a list that no longer compiles is logged and the
 * rules in force stay. The handler is installed either way, because Node's default for SIGHUP is to exit.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as AbuseRules from "@signalman/core/AbuseRules"
import * as ApiError from "@signalman/core/ApiError"
import type { CheckSpec } from "@signalman/core/CheckSpec"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Runtime from "effect/Runtime"
import { AuditLog } from "../audit/AuditLog.js"
import { AppConfig } from "../config/Config.js"
import * as Lists from "./Lists.js"

export interface CheckOptions {
  /** Where the check sits in the request body: `check` (the default), or `targets[3].check` in a bulk create. */
  readonly prefix?: string
}

// Credentials in a URL's user-info must not land in the audit log.
const withoutUserInfo = (url: string) => url.replace(/^(\s*[a-z][a-z0-9+.-]*:[/\\]{2})[^/?#\\]*@/i, "$1")

const toError = (violation: AbuseRules.Violation, field: string): ApiError.BadRequest =>
  violation.code === "DOMAIN_DENYLISTED"
    ? ApiError.make(
        "DOMAIN_DENYLISTED",
        `${violation.host} is under ${violation.domain}, which monitors may not target`,
        {
          field,
          details: { domain: violation.domain }
        }
      )
    : ApiError.make("URL_PATTERN_BLOCKED", "The URL matches a blocked attack-reconnaissance pattern", {
        field,
        details: { pattern: violation.pattern }
      })

export class Abuse extends Effect.Service<Abuse>()("Signalman/Abuse", {
  scoped: Effect.gen(function* () {
    const config = yield* AppConfig
    const audit = yield* AuditLog
    const rules = yield* Ref.make(yield* Lists.load(config))

    const reload = Effect.gen(function* () {
      if (!config["abuse.hot_reload_enabled"]) {
        return yield* Effect.logWarning(
          "SIGHUP received: abuse.hot_reload_enabled is off, so edited abuse lists take effect on restart"
        )
      }
      const next = Lists.load(config)
      if (Either.isLeft(next)) {
        return yield* Effect.logError(`Abuse lists not reloaded, the rules in force stay: ${next.left.message}`)
      }
      yield* Ref.set(rules, next.right)
      yield* Effect.logInfo("Abuse lists reloaded").pipe(
        Effect.annotateLogs({ url_patterns: next.right.patterns.length, denied_domains: next.right.domains.size })
      )
    })

    const runtime = yield* Effect.runtime<never>()
    const onHangup = () => {
      Runtime.runFork(runtime)(reload)
    }
    yield* Effect.acquireRelease(
      Effect.sync(() => process.on("SIGHUP", onHangup)),
      () => Effect.sync(() => process.off("SIGHUP", onHangup))
    )

    /**
     * Fails with the spec's error naming `<prefix>.<field>` when the check breaks a rule, after appending the
     * `abuse_blocked` entry (which outlives the refused request).
     */
    const check = (spec: CheckSpec, options: CheckOptions = {}): Effect.Effect<void, ApiError.BadRequest> =>
      Effect.gen(function* () {
        const violation = AbuseRules.violation(yield* Ref.get(rules), spec)
        if (violation === undefined) return
        const field = `${options.prefix ?? "check"}.${violation.field}`
        const request = Option.getOrUndefined(yield* Effect.serviceOption(HttpServerRequest.HttpServerRequest))
        yield* audit.append({
          event: "abuse_blocked",
          details: {
            code: violation.code,
            field,
            value: withoutUserInfo(violation.value),
            ...(violation.code === "DOMAIN_DENYLISTED"
              ? { host: violation.host, domain: violation.domain }
              : { pattern: violation.pattern }),
            ...(request === undefined ? {} : { method: request.method, path: request.url.split("?")[0] })
          }
        })
        return yield* Effect.fail(toError(violation, field))
      })

    return { check, reload, rules: Ref.get(rules) }
  }),
  dependencies: [AuditLog.Default]
}) {}
