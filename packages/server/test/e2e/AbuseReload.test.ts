/**
 * The abuse lists as an operator handles them, on the server in its own process: a bad list stops the boot with
 * one line, SIGHUP swaps edited lists in (or keeps the rules in force when the edit is bad) with
 * `abuse.hot_reload_enabled`, only logs without it, and never disturbs the SIGTERM drain.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { eventually } from "../support/Eventually.js"
import * as Reply from "../support/Http.js"
import { signIn } from "../support/Identity.js"
import * as ServerProcess from "../support/ServerProcess.js"
import * as SmtpCatcher from "../support/SmtpCatcher.js"
import * as TestDatabase from "../support/TestDatabase.js"

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "sm-abuse-"))

/** Waits (bounded) until the process has logged a line containing `text` at least `count` times. */
const logged = (server: ServerProcess.ServerProcess, text: string, count = 1) =>
  Effect.gen(function* () {
    const times = yield* eventually(
      Effect.sync(() => server.stdout().split(text).length - 1),
      (n) => n >= count,
      { timeoutMs: 10_000, intervalMs: 50 }
    )
    if (times < count) return yield* Effect.dieMessage(`never logged "${text}": ${server.stdout()}`)
  })

// Each test starts a server process of its own, not one shared by the file: the signals it sends reach the whole
// process (the first test ends it with SIGTERM), and the two differ in abuse.hot_reload_enabled and in list files
// that the test edits, both read at boot.
const start = (files: { readonly patterns: string; readonly domains: string }, hotReload: boolean) =>
  Effect.gen(function* () {
    const db = yield* TestDatabase.acquire
    const smtp = yield* SmtpCatcher.make
    const server = yield* ServerProcess.start([], {
      ...db.env,
      LOG__LEVEL: "info",
      MAIL__SMTP_URL: smtp.url,
      AUTH__MAGIC_LINK__RATE_LIMIT_SECONDS: "0",
      ABUSE__HOT_RELOAD_ENABLED: String(hotReload),
      ABUSE__URL_PATTERNS_FILE: files.patterns,
      ABUSE__DOMAIN_DENYLIST_FILE: files.domains
    })
    const alice = yield* signIn(server, smtp)
    /** The code a create of an http monitor on this URL answers with, or its status when it succeeds. */
    const verdict = (url: string) =>
      Effect.map(
        alice.browser.request("/api/v1/targets", { json: { name: "web", check: { type: "http", url } } }),
        (r) => {
          if (r.status === 201) return 201
          const { status, code, field } = Reply.refusal(r)
          return `${status} ${code} ${field}`
        }
      )
    return { server, verdict }
  })

const lists = () => {
  const dir = tempDir()
  const files = { patterns: path.join(dir, "patterns.txt"), domains: path.join(dir, "domains.txt") }
  fs.writeFileSync(files.patterns, "^/first-secret\n")
  fs.writeFileSync(files.domains, "first.test\n")
  return files
}

const denied = "400 DOMAIN_DENYLISTED check.url"
const blocked = "400 URL_PATTERN_BLOCKED check.url"

describe(`abuse lists in the server process (${TestDatabase.kind} database)`, () => {
  it.scopedLive("with hot reload, SIGHUP applies a good edit and keeps the rules in force after a bad one", () =>
    Effect.gen(function* () {
      const files = lists()
      const { server, verdict } = yield* start(files, true)
      expect(yield* verdict("https://www.first.test/")).toBe(denied)
      expect(yield* verdict("https://shop.test/first-secret")).toBe(blocked)
      expect(yield* verdict("https://second.test/")).toBe(201)

      fs.writeFileSync(files.domains, "# moved\nsecond.test\n")
      fs.writeFileSync(files.patterns, "^/second-secret\n")
      server.child.kill("SIGHUP")
      yield* logged(server, "Abuse lists reloaded")
      expect(yield* verdict("https://www.second.test/")).toBe(denied)
      expect(yield* verdict("https://shop.test/second-secret")).toBe(blocked)
      expect(yield* verdict("https://www.first.test/")).toBe(201)
      expect(yield* verdict("https://shop.test/first-secret")).toBe(201)

      // A bad line anywhere leaves both lists as they were: the swap is all or nothing.
      fs.writeFileSync(files.domains, "third.test\n")
      fs.writeFileSync(files.patterns, "^/third-secret\n(unclosed\n")
      server.child.kill("SIGHUP")
      yield* logged(server, "Abuse lists not reloaded")
      expect(server.stdout()).toContain(`abuse.url_patterns_file ${files.patterns} line 2: Invalid regular expression`)
      expect(yield* verdict("https://second.test/")).toBe(denied)
      expect(yield* verdict("https://third.test/")).toBe(201)
      expect(yield* verdict("https://shop.test/second-secret")).toBe(blocked)

      // The signals are independent: SIGTERM still drains and exits 0.
      server.child.kill("SIGTERM")
      const exit = yield* Effect.promise(() => server.exited)
      expect(exit.code).toBe(0)
      expect(exit.stdout).toContain("Shutting down: draining requests")
    })
  )

  it.scopedLive("without hot reload, SIGHUP only logs that a restart is needed; the process keeps serving", () =>
    Effect.gen(function* () {
      const files = lists()
      const { server, verdict } = yield* start(files, false)
      fs.writeFileSync(files.domains, "second.test\n")
      server.child.kill("SIGHUP")
      yield* logged(server, "abuse.hot_reload_enabled is off")
      expect(yield* verdict("https://first.test/")).toBe(denied)
      expect(yield* verdict("https://second.test/")).toBe(201)
      expect(server.child.exitCode).toBeNull()
    })
  )

  it.effect("a bad regex, a malformed domain or a missing list stops the boot with one line naming file and line", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const patterns = path.join(dir, "patterns.txt")
      fs.writeFileSync(patterns, "# recon\n^/ok\n([a-z]+\n")
      const badRegex = yield* ServerProcess.runToExit([], { DATA_DIR: "memory://", ABUSE__URL_PATTERNS_FILE: patterns })
      expect(badRegex.code).toBe(1)
      expect(badRegex.stderr).toBe(
        `signalman: abuse.url_patterns_file ${patterns} line 3: Invalid regular expression: /([a-z]+/i: Unterminated group\n`
      )

      const domains = path.join(dir, "domains.txt")
      fs.writeFileSync(domains, "ok.test\n*.example.com  # every subdomain\n")
      const badDomain = yield* ServerProcess.runToExit([], {
        DATA_DIR: "memory://",
        ABUSE__DOMAIN_DENYLIST_FILE: domains
      })
      expect(badDomain.code).toBe(1)
      expect(badDomain.stderr).toBe(
        `signalman: abuse.domain_denylist_file ${domains} line 2: *.example.com is a wildcard: list example.com, which covers its subdomains\n`
      )

      const missing = path.join(dir, "absent.txt")
      const absent = yield* ServerProcess.runToExit([], { DATA_DIR: "memory://", ABUSE__DOMAIN_DENYLIST_FILE: missing })
      expect(absent.code).toBe(1)
      expect(absent.stderr).toMatch(
        new RegExp(`^signalman: abuse.domain_denylist_file ${missing}: cannot be read: ENOENT`)
      )
      expect(absent.stderr.trim().split("\n")).toHaveLength(1)
    })
  )
})
