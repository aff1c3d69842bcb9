/**
 * Anti-abuse rules (auth-and-limits.md, Anti-abuse): a case-insensitive set of attack-reconnaissance URL
 * patterns and a deny-list of domains matched hierarchically, applied to every address a check names.
 *
 * Pure: the lists arrive as text (built-in defaults, operator files) and are compiled here; reading files,
 * reloading and auditing are the server's business.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import type { CheckSpec } from "./CheckSpec.js"

/**
 * One compiled URL pattern, with the source it was written as (what an audit entry and an error name).
 *
 * @since 0.1.0
 * @category models
 */
export interface UrlPattern {
  readonly source: string
  readonly regex: RegExp
}

/**
 * The rules in force: URL patterns, and denied domains in their normal form (lower case, ASCII, no trailing dot).
 *
 * @since 0.1.0
 * @category models
 */
export interface Rules {
  readonly patterns: ReadonlyArray<UrlPattern>
  readonly domains: ReadonlySet<string>
}

/**
 * Why a line of a list cannot be used, with its 1-based line number.
 *
 * @since 0.1.0
 * @category models
 */
export interface LineError {
  readonly line: number
  readonly reason: string
}

/**
 * A check refused by the rules: the code, the field (path under the check), what was matched and by which rule.
 *
 * @since 0.1.0
 * @category models
 */
export type Violation =
  | {
      readonly code: "URL_PATTERN_BLOCKED"
      readonly field: string
      readonly value: string
      readonly pattern: string
    }
  | {
      readonly code: "DOMAIN_DENYLISTED"
      readonly field: string
      readonly value: string
      readonly host: string
      readonly domain: string
    }

/**
 * Paths that only scanners ask for: login and RPC endpoints of common CMSs, leaked configuration and repository
 * metadata, admin consoles, system files and path traversal. Each is matched, case-insensitively, against the
 * part of a URL after its host, as written, as a URL parser resolves it, and percent-decoded.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultUrlPatterns: ReadonlyArray<string> = [
  String.raw`(^|/)wp-login\.php`,
  String.raw`(^|/)xmlrpc\.php`,
  String.raw`(^|/)wp-config\.php`,
  String.raw`(^|/)\.env($|[/?#.~])`,
  String.raw`(^|/)\.(git|svn|hg|bzr)($|[/?#])`,
  String.raw`(^|/)\.(aws|ssh|docker)/`,
  String.raw`(^|/)\.(htaccess|htpasswd|npmrc|pypirc|DS_Store)($|[?#])`,
  String.raw`(^|/)(php-?my-?admin|pma|myadmin|phpmyadmin\d*)($|[/?#])`,
  "(^|/)etc/(passwd|shadow|group|hosts)($|[?#])",
  "(^|/)proc/self/",
  String.raw`(^|[/\\=])\.\.($|[/\\])`,
  "(^|/)cgi-bin/",
  "(^|/)actuator($|[/?#])",
  "(^|/)server-(status|info)($|[/?#])",
  "(^|/)vendor/phpunit/",
  "(^|/)_ignition/execute-solution",
  "(^|/)(boaform|HNAP1)($|[/?#])",
  "(^|/)id_(rsa|dsa|ecdsa|ed25519)($|[.?#])",
  String.raw`(^|/)web\.config($|[?#])`,
  String.raw`(^|/)docker-compose\.ya?ml($|[?#])`
]

/**
 * Other uptime-monitoring and status-page services: a monitor pointed at them would turn this service's probes
 * against a competitor's infrastructure.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultDeniedDomains: ReadonlyArray<string> = [
  "pingdom.com",
  "uptimerobot.com",
  "statuscake.com",
  "betteruptime.com",
  "betterstack.com",
  "freshping.io",
  "site24x7.com",
  "uptime.com",
  "uptimia.com",
  "hetrixtools.com",
  "updown.io",
  "cronitor.io",
  "healthchecks.io",
  "checklyhq.com",
  "ohdear.app",
  "nodeping.com",
  "montastic.com",
  "statuspage.io",
  "instatus.com",
  "status.io",
  "uptimekuma.org",
  "downnotifier.com",
  "host-tracker.com"
]

/**
 * The meaningful lines of a list: blanks dropped, and comments. In a pattern list only a line starting with `#`
 * is a comment, because `#` may belong to a regex; in a domain list `#` starts a comment anywhere.
 *
 * @since 0.1.0
 * @category parsing
 */
export const lines = (
  text: string,
  comments: "whole-line" | "inline"
): ReadonlyArray<{ readonly line: number; readonly text: string }> =>
  text.split(/\r?\n/).flatMap((raw, i) => {
    const stripped = comments === "inline" ? (raw.split("#")[0] ?? "") : raw
    const trimmed = stripped.trim()
    return trimmed === "" || trimmed.startsWith("#") ? [] : [{ line: i + 1, text: trimmed }]
  })

/**
 * One pattern, compiled case-insensitively. A pattern that matches the empty path would refuse every URL, so it
 * is taken for a mistake.
 *
 * @since 0.1.0
 * @category constructors
 */
export const compilePattern = (source: string): Either.Either<UrlPattern, string> => {
  let regex: RegExp
  try {
    regex = new RegExp(source, "i")
  } catch (e) {
    return Either.left(e instanceof Error ? e.message : String(e))
  }
  if (regex.test("")) return Either.left(`/${source}/ matches every URL`)
  return Either.right({ source, regex })
}

/**
 * A pattern list, one regex a line; the first bad line fails the whole list.
 *
 * @since 0.1.0
 * @category constructors
 */
export const compilePatterns = (text: string): Either.Either<ReadonlyArray<UrlPattern>, LineError> => {
  const out: Array<UrlPattern> = []
  for (const { line, text: source } of lines(text, "whole-line")) {
    const compiled = compilePattern(source)
    if (Either.isLeft(compiled)) return Either.left({ line, reason: compiled.left })
    out.push(compiled.right)
  }
  return Either.right(out)
}

const label = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/

// The WHATWG URL parser applies IDNA (UTS #46): Unicode to punycode, full-width dots to dots, case folding.
// It is a global in every runtime core targets, so core needs no Node import for it.
const toAscii = (name: string): string | undefined => {
  if (/^[\x20-\x7e]*$/.test(name)) return name.toLowerCase()
  try {
    return new URL(`http://${name}`).hostname
  } catch {
    return undefined
  }
}

/**
 * A deny-list entry in its normal form, or why it is not a domain. Strict: list files are the operator's, and a
 * typo that silently matched nothing would leave a hole.
 *
 * @since 0.1.0
 * @category parsing
 */
export const domainEntry = (text: string): Either.Either<string, string> => {
  const written = text.trim()
  if (written.startsWith("*.")) {
    return Either.left(`${written} is a wildcard: list ${written.slice(2)}, which covers its subdomains`)
  }
  if (written === "" || /[\s/:@?#[\]\\*%]/.test(written)) return Either.left(`${written} is not a domain name`)
  const ascii = toAscii(written.replace(/\.$/, ""))
  if (ascii === undefined) return Either.left(`${written} is not a domain name`)
  const labels = ascii.split(".")
  if (ascii.length > 253 || !labels.every((l) => label.test(l))) return Either.left(`${written} is not a domain name`)
  if (/^\d+$/.test(labels[labels.length - 1] ?? "")) return Either.left(`${written} is an IP address, not a domain`)
  return Either.right(ascii)
}

/**
 * A domain list, one domain a line; the first bad line fails the whole list.
 *
 * @since 0.1.0
 * @category constructors
 */
export const compileDomains = (text: string): Either.Either<ReadonlyArray<string>, LineError> => {
  const out: Array<string> = []
  for (const { line, text: entry } of lines(text, "inline")) {
    const domain = domainEntry(entry)
    if (Either.isLeft(domain)) return Either.left({ line, reason: domain.left })
    out.push(domain.right)
  }
  return Either.right(out)
}

/**
 * The rules from compiled parts; domains are taken as already normal (from {@link domainEntry}).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (parts: {
  readonly patterns: ReadonlyArray<UrlPattern>
  readonly domains: Iterable<string>
}): Rules => ({ patterns: parts.patterns, domains: new Set(parts.domains) })

/**
 * The built-in rules, compiled.
 *
 * @since 0.1.0
 * @category constructors
 */
export const defaults: Rules = make({
  patterns: defaultUrlPatterns.map((source) => ({ source, regex: new RegExp(source, "i") })),
  domains: defaultDeniedDomains
})

/**
 * The domain name a check's host field dials, in normal form; undefined for an IPv6 literal or nothing at all.
 * Lenient, unlike {@link domainEntry}: whatever a caller wrote, the name compared is the one that would be dialed,
 * so a port, a trailing dot, upper case or a Unicode spelling cannot slip past the list.
 *
 * @since 0.1.0
 * @category parsing
 */
export const hostName = (host: string): string | undefined => {
  let name = host.trim()
  if (name.startsWith("[") || (name.match(/:/g) ?? []).length > 1) return undefined
  name = name.replace(/:\d*$/, "").replace(/\.+$/, "")
  if (name === "") return undefined
  return toAscii(name) ?? name.toLowerCase()
}

/**
 * The listed domain that denies a host: the host itself or any domain it sits under (`example.com` covers
 * `a.b.example.com`, never `notexample.com`).
 *
 * @since 0.1.0
 * @category matching
 */
export const deniedBy = (domains: ReadonlySet<string>, host: string): string | undefined => {
  let name = hostName(host)
  while (name !== undefined) {
    if (domains.has(name)) return name
    const dot = name.indexOf(".")
    name = dot === -1 ? undefined : name.slice(dot + 1)
  }
  return undefined
}

// scheme://authority, or `\\` for the backslash a WHATWG parser reads as a slash in special schemes.
const schemeAndAuthority = /^\s*[a-z][a-z0-9+.-]*:(?:[/\\]{2})?([^/?#\\]*)/i

/**
 * The host of a URL and the part after it. A URL the parser refuses is still split by hand, so a template with
 * `{{var}}` or a malformed URL is judged on what it says rather than waved through.
 */
const splitUrl = (url: string): { readonly host: string | undefined; readonly rest: ReadonlyArray<string> } => {
  const written = schemeAndAuthority.exec(url)
  const authority = written === null ? (/^\s*([^/?#\\]*)/.exec(url)?.[1] ?? "") : (written[1] ?? "")
  const rawRest = url.slice(written === null ? url.indexOf(authority) + authority.length : written[0].length)
  const rest = [rawRest]
  let host: string | undefined = authority.slice(authority.lastIndexOf("@") + 1)
  try {
    const parsed = new URL(url)
    host = parsed.hostname
    rest.push(`${parsed.pathname}${parsed.search}${parsed.hash}`)
  } catch {
    // Split by hand above.
  }
  // Percent-decoded, repeatedly, so %2e%2e%2f and its double encoding read as ../
  let decoded = rawRest
  for (let i = 0; i < 3; i++) {
    const next = decoded.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
    if (next === decoded) break
    decoded = next
    rest.push(decoded)
  }
  return { host: host === "" ? undefined : host, rest }
}

/**
 * The first pattern a URL's path, query or fragment matches.
 *
 * @since 0.1.0
 * @category matching
 */
export const blockedBy = (patterns: ReadonlyArray<UrlPattern>, url: string): UrlPattern | undefined => {
  const { rest } = splitUrl(url)
  return patterns.find((pattern) => rest.some((candidate) => pattern.regex.test(candidate)))
}

type Subject = { readonly field: string; readonly kind: "url" | "host"; readonly value: string }

/** Every address a check names, with its field: the URLs it fetches and the names it dials or queries. */
const subjects = (spec: CheckSpec): ReadonlyArray<Subject> => {
  switch (spec.type) {
    case "http":
      return [{ field: "url", kind: "url", value: spec.url }]
    case "flow":
      return [
        { field: "start_url", kind: "url", value: spec.start_url },
        ...spec.steps.flatMap(
          (step, i): ReadonlyArray<Subject> =>
            step.action === "goto" ? [{ field: `steps[${i}].url`, kind: "url", value: step.url }] : []
        )
      ]
    case "tcp":
    case "ping":
      return [{ field: "host", kind: "host", value: spec.host }]
    case "tls_cert":
      return [
        { field: "host", kind: "host", value: spec.host },
        ...(spec.server_name === undefined
          ? []
          : [{ field: "server_name", kind: "host" as const, value: spec.server_name }])
      ]
    case "dns":
      return [
        { field: "domain", kind: "host", value: spec.domain },
        ...(spec.resolver === undefined ? [] : [{ field: "resolver", kind: "host" as const, value: spec.resolver }])
      ]
    case "domain_expiry":
      return [{ field: "domain", kind: "host", value: spec.domain }]
    case "heartbeat":
    case "manual":
      return []
  }
}

/**
 * The first rule a check breaks, in field order; for one field the deny-list is judged before the patterns.
 *
 * @since 0.1.0
 * @category matching
 */
export const violation = (rules: Rules, spec: CheckSpec): Violation | undefined => {
  for (const { field, kind, value } of subjects(spec)) {
    const split = kind === "url" ? splitUrl(value) : undefined
    const host = split === undefined ? value : split.host
    const domain = host === undefined ? undefined : deniedBy(rules.domains, host)
    if (host !== undefined && domain !== undefined) {
      return { code: "DOMAIN_DENYLISTED", field, value, host: hostName(host) ?? host, domain }
    }
    if (split === undefined) continue
    const pattern = rules.patterns.find((p) => split.rest.some((candidate) => p.regex.test(candidate)))
    if (pattern !== undefined) return { code: "URL_PATTERN_BLOCKED", field, value, pattern: pattern.source }
  }
  return undefined
}
