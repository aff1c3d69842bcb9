/**
 * The anti-abuse rules as configured: the built-in lists (unless `abuse.builtin_rules_enabled` is off), the
 * operator's files (`abuse.url_patterns_file`, `abuse.domain_denylist_file`) and the operator's own domain, the
 * host of `auth.public_base_url`. Read at boot, where a bad line stops the start with one line naming the file
 * and line, and again on SIGHUP, where it leaves the rules in force as they were.
 */
import { readFileSync } from "node:fs"
import * as AbuseRules from "@signalman/core/AbuseRules"
import * as Either from "effect/Either"
import { ConfigError, type Values } from "../config/Config.js"

const readList = <A>(
  setting: "abuse.url_patterns_file" | "abuse.domain_denylist_file",
  path: string | undefined,
  compile: (text: string) => Either.Either<ReadonlyArray<A>, AbuseRules.LineError>
): Either.Either<ReadonlyArray<A>, ConfigError> => {
  if (path === undefined) return Either.right([])
  let text: string
  try {
    text = readFileSync(path, "utf8")
  } catch (e) {
    return Either.left(
      new ConfigError(`${setting} ${path}: cannot be read: ${e instanceof Error ? e.message : String(e)}`)
    )
  }
  return Either.mapLeft(
    compile(text),
    (error) => new ConfigError(`${setting} ${path} line ${error.line}: ${error.reason}`)
  )
}

/**
 * The operator's own domain: the host of the configured public base URL. The derived default (`localhost`)
 * names no public domain, and an IP literal is the address guard's business, so neither is listed.
 */
export const ownDomain = (config: Values): string | undefined => {
  const base = config["auth.public_base_url"]
  if (base === undefined) return undefined
  const host = new URL(base).hostname
  if (host === "localhost") return undefined
  return Either.getOrUndefined(AbuseRules.domainEntry(host))
}

/** Every rule in force for this configuration, or the one line saying which list is wrong where. */
export const load = (config: Values): Either.Either<AbuseRules.Rules, ConfigError> =>
  Either.gen(function* () {
    const builtin = config["abuse.builtin_rules_enabled"]
    const patterns = yield* readList(
      "abuse.url_patterns_file",
      config["abuse.url_patterns_file"],
      AbuseRules.compilePatterns
    )
    const domains = yield* readList(
      "abuse.domain_denylist_file",
      config["abuse.domain_denylist_file"],
      AbuseRules.compileDomains
    )
    const own = ownDomain(config)
    return AbuseRules.make({
      patterns: [...(builtin ? AbuseRules.defaults.patterns : []), ...patterns],
      domains: [...(builtin ? AbuseRules.defaults.domains : []), ...domains, ...(own === undefined ? [] : [own])]
    })
  })
