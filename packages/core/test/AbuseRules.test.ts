import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as AbuseRules from "../src/AbuseRules.js"
import { CheckSpec } from "../src/CheckSpec.js"

const domains = (...names: ReadonlyArray<string>) =>
  new Set(names.map((n) => Either.getOrThrowWith(AbuseRules.domainEntry(n), (e) => new Error(e))))

const check = Schema.decodeUnknownSync(CheckSpec)

const rules = AbuseRules.make({
  patterns: AbuseRules.defaults.patterns,
  domains: domains("example.com", "pingdom.com", "bücher.de")
})

describe("AbuseRules.deniedBy", () => {
  const list = domains("example.com")

  it("a listed domain denies itself and every subdomain, not a name that merely ends the same", () => {
    expect(AbuseRules.deniedBy(list, "example.com")).toBe("example.com")
    expect(AbuseRules.deniedBy(list, "a.b.example.com")).toBe("example.com")
    expect(AbuseRules.deniedBy(list, "notexample.com")).toBeUndefined()
    expect(AbuseRules.deniedBy(list, "example.com.evil.net")).toBeUndefined()
    expect(AbuseRules.deniedBy(list, "com")).toBeUndefined()
  })

  it("case, surrounding space, trailing dots and a port do not matter", () => {
    for (const host of ["EXAMPLE.Com", " www.example.com ", "example.com.", "example.com..", "api.example.com:8443"]) {
      expect(AbuseRules.deniedBy(list, host), host).toBe("example.com")
    }
  })

  it("a Unicode name is compared in punycode, whichever way either side is written", () => {
    const idn = domains("bücher.de")
    expect([...idn]).toEqual(["xn--bcher-kva.de"])
    expect(AbuseRules.deniedBy(idn, "shop.BÜCHER.de")).toBe("xn--bcher-kva.de")
    expect(AbuseRules.deniedBy(idn, "xn--bcher-kva.de")).toBe("xn--bcher-kva.de")
    // Full-width dots are dots to IDNA, so they cannot split the name past the list.
    expect(AbuseRules.deniedBy(domains("example.com"), "www．example。com")).toBe("example.com")
  })

  it("IP literals, IPv6 with or without brackets and a port, match nothing and do not throw", () => {
    for (const host of ["::1", "[::1]", "[2001:db8::1]:443", "2001:db8::1", "127.0.0.1", "127.0.0.1:80", "", " "]) {
      expect(AbuseRules.deniedBy(list, host), host).toBeUndefined()
    }
  })
})

describe("AbuseRules.domainEntry", () => {
  it("normalises case, a trailing dot and Unicode", () => {
    expect(AbuseRules.domainEntry(" Example.COM. ")).toEqual(Either.right("example.com"))
    expect(AbuseRules.domainEntry("bücher.de")).toEqual(Either.right("xn--bcher-kva.de"))
    expect(AbuseRules.domainEntry("zip")).toEqual(Either.right("zip"))
  })

  it("refuses what is not a domain, saying why", () => {
    expect(AbuseRules.domainEntry("*.example.com")).toEqual(
      Either.left("*.example.com is a wildcard: list example.com, which covers its subdomains")
    )
    expect(AbuseRules.domainEntry("10.0.0.1")).toEqual(Either.left("10.0.0.1 is an IP address, not a domain"))
    for (const bad of [
      "https://example.com",
      "example.com/path",
      "exa mple.com",
      "example..com",
      "-example.com",
      "example-.com",
      "::1",
      `${"a".repeat(64)}.com`
    ]) {
      expect(Either.isLeft(AbuseRules.domainEntry(bad)), bad).toBe(true)
    }
  })
})

describe("AbuseRules lists", () => {
  it("domain lists take inline comments and blank lines; the first bad line is named", () => {
    expect(AbuseRules.compileDomains("# competitors\nexample.com  # ours\n\n  Other.NET\n")).toEqual(
      Either.right(["example.com", "other.net"])
    )
    expect(AbuseRules.compileDomains("example.com\n\nnot a domain\nfine.org")).toEqual(
      Either.left({ line: 3, reason: "not a domain is not a domain name" })
    )
  })

  it("pattern lists take whole-line comments only (# may belong to a regex); a bad regex is named with its line", () => {
    const compiled = AbuseRules.compilePatterns("# recon\n/secret#frag\n\n  ^/admin$  \n")
    expect(Either.map(compiled, (ps) => ps.map((p) => p.source))).toEqual(Either.right(["/secret#frag", "^/admin$"]))
    const bad = AbuseRules.compilePatterns("ok\n(unclosed\n")
    expect(Either.isLeft(bad) && bad.left.line).toBe(2)
    expect(Either.isLeft(bad) && bad.left.reason).toContain("Invalid regular expression")
  })

  it("a pattern that matches every URL is refused", () => {
    expect(AbuseRules.compilePattern(".*")).toEqual(Either.left("/.*/ matches every URL"))
    expect(AbuseRules.compilePattern("(^|/)x?")).toEqual(Either.left("/(^|/)x?/ matches every URL"))
  })

  it("every built-in pattern and domain compiles under the rules operator files follow", () => {
    for (const source of AbuseRules.defaultUrlPatterns) {
      expect(Either.isRight(AbuseRules.compilePattern(source)), source).toBe(true)
    }
    for (const domain of AbuseRules.defaultDeniedDomains) {
      expect(AbuseRules.domainEntry(domain), domain).toEqual(Either.right(domain))
    }
  })
})

describe("AbuseRules.blockedBy (built-in patterns)", () => {
  const blocked = (url: string) => AbuseRules.blockedBy(AbuseRules.defaults.patterns, url)?.source

  it("refuses reconnaissance paths, in any case", () => {
    for (const url of [
      "https://site.test/wp-login.php",
      "https://site.test/blog/WP-LOGIN.PHP?redirect_to=x",
      "https://site.test/xmlrpc.php",
      "https://site.test/.env",
      "https://site.test/app/.env.production",
      "https://site.test/.git/config",
      "https://site.test/.git",
      "https://site.test/phpMyAdmin/",
      "https://site.test/pma/index.php",
      "https://site.test/cgi-bin/test.cgi",
      "https://site.test/actuator/env",
      "https://site.test/server-status",
      "https://site.test/.aws/credentials",
      "https://site.test/vendor/phpunit/phpunit/src/Util/PHP/eval-stdin.php",
      "https://site.test/download?file=/etc/passwd"
    ]) {
      expect(blocked(url), url).toBeDefined()
    }
  })

  it("sees traversal however it is spelled: raw, resolved by the parser, percent-encoded once or twice, backslashes", () => {
    for (const url of [
      "https://site.test/static/../../etc/passwd",
      "https://site.test/a/%2e%2e/%2e%2e/etc/shadow",
      "https://site.test/files?path=..%2f..%2fsecret",
      "https://site.test/files?path=%252e%252e%252fsecret",
      "https://site.test/a\\..\\windows\\win.ini",
      "https://site.test/%2Eenv"
    ]) {
      expect(blocked(url), url).toBeDefined()
    }
  })

  it("leaves ordinary URLs alone, including names that only resemble a pattern", () => {
    for (const url of [
      "https://site.test/",
      "https://site.test",
      "https://my.environment.test/health",
      "https://site.test/environment",
      "https://site.test/.well-known/security.txt",
      "https://site.test/github/actuators",
      "https://site.test/v1.2..3/ok",
      "https://site.test/docs/etc/passwords-policy",
      "https://{{host}}/status"
    ]) {
      expect(blocked(url), url).toBeUndefined()
    }
  })
})

describe("AbuseRules.violation", () => {
  it("http: the url's host against the deny-list, then its path against the patterns", () => {
    expect(AbuseRules.violation(rules, check({ type: "http", url: "https://status.Example.com./ok" }))).toEqual({
      code: "DOMAIN_DENYLISTED",
      field: "url",
      value: "https://status.Example.com./ok",
      host: "status.example.com",
      domain: "example.com"
    })
    expect(AbuseRules.violation(rules, check({ type: "http", url: "https://site.test/.env" }))).toMatchObject({
      code: "URL_PATTERN_BLOCKED",
      field: "url"
    })
    expect(
      AbuseRules.violation(rules, check({ type: "http", url: "https://user:pw@pingdom.com:8443/" }))
    ).toMatchObject({ code: "DOMAIN_DENYLISTED", domain: "pingdom.com" })
    expect(AbuseRules.violation(rules, check({ type: "http", url: "https://xn--bcher-kva.de/" }))).toMatchObject({
      code: "DOMAIN_DENYLISTED",
      domain: "xn--bcher-kva.de"
    })
    expect(AbuseRules.violation(rules, check({ type: "http", url: "http://[::1]:8080/ok" }))).toBeUndefined()
    expect(AbuseRules.violation(rules, check({ type: "http", url: "https://site.test/ok" }))).toBeUndefined()
  })

  it("an unparseable URL is still judged on its host and path", () => {
    expect(AbuseRules.violation(rules, check({ type: "http", url: "https://www.example.com:99999/x" }))).toMatchObject({
      code: "DOMAIN_DENYLISTED",
      host: "www.example.com"
    })
    expect(AbuseRules.violation(rules, check({ type: "http", url: "site.test/.git/HEAD" }))).toMatchObject({
      code: "URL_PATTERN_BLOCKED"
    })
    expect(AbuseRules.violation(rules, check({ type: "http", url: "https://{{sub}}.example.com/" }))).toMatchObject({
      code: "DOMAIN_DENYLISTED"
    })
  })

  it("flow: start_url and every goto step, each named by its path", () => {
    const flow = check({
      type: "flow",
      start_url: "https://site.test/login",
      steps: [
        { action: "click", selector: "#go" },
        { action: "goto", url: "https://site.test/home" },
        { action: "goto", url: "https://shop.example.com/cart" }
      ]
    })
    expect(AbuseRules.violation(rules, flow)).toMatchObject({ code: "DOMAIN_DENYLISTED", field: "steps[2].url" })
    const start = check({
      type: "flow",
      start_url: "https://site.test/wp-login.php",
      steps: [{ action: "assert_url", contains: "/" }]
    })
    expect(AbuseRules.violation(rules, start)).toMatchObject({ code: "URL_PATTERN_BLOCKED", field: "start_url" })
  })

  it("tcp, ping, tls_cert, dns and domain_expiry: the names they dial or query", () => {
    expect(AbuseRules.violation(rules, check({ type: "tcp", host: "DB.example.com", port: 5432 }))).toMatchObject({
      code: "DOMAIN_DENYLISTED",
      field: "host"
    })
    expect(AbuseRules.violation(rules, check({ type: "ping", host: "example.com." }))).toMatchObject({
      field: "host"
    })
    expect(
      AbuseRules.violation(rules, check({ type: "tls_cert", host: "203.0.113.5", server_name: "www.pingdom.com" }))
    ).toMatchObject({ code: "DOMAIN_DENYLISTED", field: "server_name" })
    expect(
      AbuseRules.violation(rules, check({ type: "dns", domain: "mail.example.com", record_type: "MX" }))
    ).toMatchObject({ field: "domain" })
    expect(
      AbuseRules.violation(
        rules,
        check({ type: "dns", domain: "site.test", record_type: "A", resolver: "ns1.pingdom.com:53" })
      )
    ).toMatchObject({ field: "resolver" })
    expect(AbuseRules.violation(rules, check({ type: "domain_expiry", domain: "example.com" }))).toMatchObject({
      field: "domain"
    })
    expect(AbuseRules.violation(rules, check({ type: "tcp", host: "::1", port: 22 }))).toBeUndefined()
    expect(AbuseRules.violation(rules, check({ type: "heartbeat", period: 60, grace: 0 }))).toBeUndefined()
    expect(AbuseRules.violation(rules, check({ type: "manual" }))).toBeUndefined()
  })
})
