import { assert, describe, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as KeyPath from "../src/KeyPath.js"
import * as Validation from "../src/Validation.js"
import { storedHttpCheck } from "./support/Fixtures.js"

const fromEnv = (name: string) => `\${env:${name}}`

const problemsOf = (config: unknown, env: Record<string, string> = {}): ReadonlyArray<string> => {
  const validated = Validation.validate(config, env)
  return Either.isLeft(validated) ? validated.left.map((p) => `${KeyPath.format(p.path)}: ${p.message}`) : []
}

const valid = (config: unknown, env: Record<string, string> = {}) => {
  const validated = Validation.validate(config, env)
  if (Either.isLeft(validated))
    assert.fail(validated.left.map((p) => `${KeyPath.format(p.path)}: ${p.message}`).join("\n"))
  return validated.right
}

const http = (url = "https://shop.example/health") => ({ type: "http", url })
const monitor = (key: string, extra: Record<string, unknown> = {}) => ({ key, name: key, check: http(), ...extra })
const monitors = (...items: ReadonlyArray<Record<string, unknown>>) => ({ project: "shop", monitors: items })

// The one problem at a path, to assert on its message.
const at = (problems: ReadonlyArray<string>, path: string) => {
  const found = problems.filter((p) => p.startsWith(`${path}: `))
  assert.strictEqual(found.length, 1, `${path} in:\n${problems.join("\n")}`)
  return found[0]!.slice(path.length + 2)
}

describe("Validation", () => {
  it("a valid file decodes with the API's defaults filled in", () => {
    const desired = valid({
      project: "shop",
      channels: [{ key: "pd", name: "PD", kind: "pagerduty", config: { routing_key: "a".repeat(32) } }],
      monitors: [
        monitor("api", { alerts: ["pd"] }),
        monitor("cert", { check: { type: "tls_cert", host: "shop.example" } })
      ],
      status_pages: [{ key: "main", slug: "shop", name: "Shop", components: [{ monitor: "api" }] }],
      maintenance: [{ key: "w", title: "Work", starts_at: "2030-01-01T00:00:00Z", ends_at: "2030-01-01T01:00:00Z" }]
    })
    assert.strictEqual(desired.project, "shop")
    assert.deepStrictEqual(desired.channels[0]!.shown, { routing_key: "***", severity: "critical" })
    const api = desired.monitors[0]!
    assert.strictEqual(api.resolved.alert_confirmations, 2)
    assert.deepStrictEqual(api.resolved.check, storedHttpCheck("https://shop.example/health"))
    assert.strictEqual(
      desired.monitors[1]!.resolved.check.type === "tls_cert" && desired.monitors[1]!.resolved.check.port,
      443
    )
    assert.deepStrictEqual(desired.status_pages[0]!.branding, {
      primary_color: null,
      theme: "auto",
      hide_powered_by: false
    })
    assert.isTrue(desired.maintenance[0]!.item.suppress_alerts)
    assert.deepStrictEqual(valid({ project: "empty" }).monitors, [])
  })

  it("an unknown key anywhere is a problem naming its path and the keys accepted there", () => {
    const problems = problemsOf({
      project: "shop",
      monitor: [],
      monitors: [monitor("api", { check: { ...http(), urll: "x" }, intervall: 60 })],
      status_pages: [{ key: "p", slug: "shop", name: "Shop", components: [{ monitor: "api", name: "x" }] }]
    })
    assert.match(at(problems, "monitor"), /^is unexpected, expected: "project" \| "variables"/)
    assert.match(at(problems, "monitors[0].check.urll"), /^is unexpected, expected: "type" \| "url"/)
    assert.match(at(problems, "monitors[0].intervall"), /^is unexpected/)
    assert.match(at(problems, "status_pages[0].components[0].name"), /^is unexpected, expected: "monitor"/)
  })

  it("every problem is listed, each item judged on its own", () => {
    const problems = problemsOf(
      monitors(
        monitor("a", { interval: "60" }),
        monitor("b", { check: { type: "tls_cert", host: "x", warn_days: 3, critical_days: 7 } }),
        monitor("c", { check: { type: "http" } }),
        monitor("d", { alerts: ["nobody"] })
      )
    )
    assert.deepStrictEqual(problems, [
      'monitors[0].interval: Expected number, actual "60"',
      "monitors[1].check.warn_days: warn_days (3) must be greater than critical_days (7)",
      "monitors[2].check.url: is missing",
      'monitors[3].alerts[0]: no channel in this file has the key "nobody"'
    ])
  })

  it("keys are unique in their list (another list may reuse one) and follow the key pattern", () => {
    const problems = problemsOf({
      project: "shop",
      channels: [{ key: "api", name: "A", kind: "email", config: { addresses: ["a@shop.example"] } }],
      monitors: [monitor("api"), monitor("web"), monitor("api"), monitor("Bad Key"), monitor("-x")]
    })
    assert.strictEqual(at(problems, "monitors[2].key"), '"api" is already the key of monitors[0]')
    assert.match(at(problems, "monitors[3].key"), /must start with a lowercase letter or digit/)
    assert.match(at(problems, "monitors[4].key"), /must start with a lowercase letter or digit/)
    assert.strictEqual(problems.length, 3)
    assert.match(
      at(problemsOf({ project: "Shop!" }), "project"),
      /must be 1 to 64 lowercase letters, digits or hyphens/
    )
    // A variable's key is the API's variable key too.
    assert.match(
      at(problemsOf({ project: "shop", variables: [{ key: "base-url", value: "x" }] }), "variables[0].key"),
      /must be a lower-case letter, then up to 62 of a-z, 0-9 and _/
    )
  })

  it("references go by key: unknown and repeated keys are problems, also in an item refused for its shape", () => {
    const problems = problemsOf({
      project: "shop",
      channels: [{ key: "ops", name: "Ops", kind: "email", config: { addresses: ["ops@shop.example"] } }],
      monitors: [
        monitor("api", { alerts: ["ops", "ops", "pager"] }),
        { key: "bad", name: "Bad", check: { type: "nope" }, alerts: ["ghost"] }
      ],
      status_pages: [
        {
          key: "p",
          slug: "shop",
          name: "Shop",
          components: [{ monitor: "api" }, { monitor: "db" }, { monitor: "api" }]
        }
      ],
      maintenance: [
        {
          key: "w",
          title: "Work",
          starts_at: "2030-01-01T00:00:00Z",
          ends_at: "2030-01-01T01:00:00Z",
          components: ["bad", "db"]
        }
      ]
    })
    assert.strictEqual(at(problems, "monitors[0].alerts[1]"), 'lists "ops" twice')
    assert.strictEqual(at(problems, "monitors[0].alerts[2]"), 'no channel in this file has the key "pager"')
    assert.strictEqual(at(problems, "monitors[1].alerts[0]"), 'no channel in this file has the key "ghost"')
    assert.strictEqual(
      at(problems, "status_pages[0].components[1].monitor"),
      'no monitor in this file has the key "db"'
    )
    assert.strictEqual(at(problems, "status_pages[0].components[2].monitor"), 'monitor "api" is on this page twice')
    // "bad" is declared, though refused for its check: naming it is not a second problem.
    assert.strictEqual(at(problems, "maintenance[0].components[1]"), 'no monitor in this file has the key "db"')
    assert.notInclude(problems.join("\n"), "maintenance[0].components[0]")
  })

  it("the API's rules that hold on every plan: interval floors of each kind, heartbeat cadence, manual settings", () => {
    const problems = problemsOf(
      monitors(
        monitor("fast", { interval: 5 }),
        monitor("cert", { check: { type: "tls_cert", host: "shop.example" }, interval: 600 }),
        monitor("hb", { check: { type: "heartbeat", period: 300, grace: 0 }, interval: 120 }),
        monitor("man", { check: { type: "manual" }, interval: 120 }),
        monitor("man2", { check: { type: "manual" }, recovery_period_secs: 60 }),
        monitor("remind", { renotify_interval_secs: 30 })
      )
    )
    assert.match(at(problems, "monitors[0].interval"), /^interval must be at least 10 s for a http check/)
    assert.match(at(problems, "monitors[1].interval"), /^interval must be at least 3600 s for a tls_cert check/)
    assert.match(at(problems, "monitors[2].interval"), /is evaluated at least every 60 s/)
    assert.strictEqual(at(problems, "monitors[3].interval"), "a manual monitor's interval is 60 s")
    assert.strictEqual(at(problems, "monitors[4].recovery_period_secs"), "a manual monitor's recovery_period_secs is 0")
    assert.match(at(problems, "monitors[5].renotify_interval_secs"), /0 \(no reminders\) or at least 60/)
  })

  it("what only the plan or the instance decides is left to the service: plan floors, flows, sms, count policies without regions", () => {
    valid({
      project: "shop",
      channels: [{ key: "sms", name: "SMS", kind: "sms", config: { phone_numbers: ["+14155550123"] } }],
      monitors: [
        monitor("fast", { interval: 10, region_policy: { count: 3 } }),
        monitor("flow", {
          check: {
            type: "flow",
            start_url: "https://shop.example",
            steps: [{ action: "assert_text", text: "Welcome" }]
          }
        })
      ]
    })
  })

  it("check rules: flows need an assert, dns record limits, http URLs, regions and policies, the redaction placeholder", () => {
    const problems = problemsOf(
      monitors(
        monitor("flow", {
          check: { type: "flow", start_url: "https://shop.example", steps: [{ action: "click", selector: "#go" }] }
        }),
        monitor("dns", {
          check: {
            type: "dns",
            domain: "shop.example",
            record_type: "A",
            expected_records: Array.from({ length: 51 }, (_, i) => `10.0.0.${i}`)
          }
        }),
        monitor("ftp", { check: http("ftp://shop.example/file") }),
        monitor("hb", { check: { type: "heartbeat", period: 300, grace: 0 }, regions: ["eu-west"] }),
        monitor("policy", { regions: ["eu-west"], region_policy: { count: 2 } }),
        monitor("sentinel", { check: { ...http(), bearer_token: "***" } })
      )
    )
    assert.strictEqual(
      at(problems, "monitors[0].check.steps"),
      "a flow needs at least one assert_text or assert_url step"
    )
    assert.strictEqual(at(problems, "monitors[1].check.expected_records"), "expected_records holds at most 50 values")
    assert.strictEqual(at(problems, "monitors[2].check.url"), "check.url must be an http or https URL, not ftp:")
    assert.match(at(problems, "monitors[3].regions"), /takes no regions/)
    assert.match(at(problems, "monitors[4].region_policy"), /count 2 exceeds the monitor's 1 region/)
    assert.match(at(problems, "monitors[5].check.bearer_token"), /^\*\*\* is the redaction placeholder/)
  })

  it("a secret variable may sit only in a header value or the body of a check", () => {
    const problems = problemsOf(
      {
        project: "shop",
        variables: [
          { key: "token", is_secret: true, value: fromEnv("TOKEN") },
          { key: "host", value: "shop.example" }
        ],
        monitors: [
          monitor("ok", {
            check: { ...http("https://{{host}}/x"), headers: { "X.Token": "{{token}}" }, body: "{{token}}" }
          }),
          monitor("bad", { check: http("https://shop.example/?t={{token}}") })
        ]
      },
      { TOKEN: "tok" }
    )
    assert.deepStrictEqual(problems, [
      "monitors[1].check.url: {{token}} is a secret variable: a secret may appear only in a header value or the body"
    ])
  })

  it("channels: each kind's config rules, and *** is not a secret", () => {
    const problems = problemsOf({
      project: "shop",
      channels: [
        { key: "a", name: "A", kind: "slack", config: { webhook_url: "http://hooks.example/x" } },
        { key: "b", name: "B", kind: "webhook", config: { url: "https://hooks.example", headers: { Host: "x" } } },
        { key: "c", name: "C", kind: "telegram", config: { bot_token: "***", chat_id: "@shop_alerts" } },
        { key: "d", name: "D", kind: "carrier-pigeon", config: {} }
      ]
    })
    assert.strictEqual(at(problems, "channels[0].config.webhook_url"), "must be an https URL")
    assert.match(at(problems, "channels[1].config.headers"), /Host is set by the service/)
    assert.match(at(problems, "channels[2].config.bot_token"), /^\*\*\* is the redaction placeholder/)
    assert.match(at(problems, "channels[3].kind"), /^Expected "email" \| "webhook"/)
  })

  it("status pages: access by the API's own rules, reserved and repeated slugs", () => {
    const page = (key: string, slug: string, extra: Record<string, unknown> = {}) => ({
      key,
      slug,
      name: key,
      ...extra
    })
    const problems = problemsOf({
      project: "shop",
      status_pages: [
        page("a", "admin"),
        page("b", "shop", { access: { protected: true, password: { enabled: true } } }),
        page("c", "shop", { access: { protected: true, pasword: {} } }),
        page("d", "shop-eu", { access: { protected: true, email_code: { enabled: true, allow: ["nobody"] } } }),
        page("e", "shop-us", { branding: { primary_color: "red" } })
      ]
    })
    assert.match(at(problems, "status_pages[0].slug"), /"admin" is reserved/)
    assert.match(at(problems, "status_pages[1].access.password.value"), /Turning the password on needs a password/)
    assert.strictEqual(at(problems, "status_pages[2].slug"), '"shop" is the slug of another page')
    assert.match(at(problems, "status_pages[2].access.pasword"), /Unknown key "access.pasword"/)
    assert.match(at(problems, "status_pages[3].access.email_code.allow[0]"), /email address .* or a domain/)
    assert.match(at(problems, "status_pages[4].branding.primary_color"), /#rrggbb/)
    const ok = valid({
      project: "shop",
      status_pages: [page("p", "shop", { access: { protected: true, password: { enabled: true, value: "pw" } } })]
    })
    assert.strictEqual(ok.status_pages[0]!.access?.passwordValue, "pw")
  })

  it("maintenance: the range is judged, not the clock; times carry a zone", () => {
    const window = (key: string, starts_at: string, ends_at: string) => ({ key, title: key, starts_at, ends_at })
    const problems = problemsOf({
      project: "shop",
      maintenance: [
        window("back", "2030-01-02T00:00:00Z", "2030-01-01T00:00:00Z"),
        window("local", "2030-01-01T00:00:00", "2030-01-01T01:00:00Z"),
        window("past", "2020-01-01T00:00:00Z", "2020-01-01T01:00:00Z")
      ]
    })
    assert.deepStrictEqual(problems, [
      "maintenance[0].ends_at: ends_at must be after starts_at",
      "maintenance[1].starts_at: must be an RFC 3339 timestamp with a zone (2026-05-01T22:00:00Z)"
    ])
  })

  it("the environment: references replaced, a name not set is one problem, a secret variable's value must come from it", () => {
    const config = {
      project: "shop",
      variables: [
        { key: "a", is_secret: true, value: fromEnv("A") },
        { key: "b", is_secret: true, value: "literal" },
        { key: "c", is_secret: true, value: `Bearer ${fromEnv("A")}` },
        { key: "d", value: fromEnv("MISSING") }
      ],
      monitors: [monitor("api", { check: http(fromEnv("URL")) })]
    }
    assert.deepStrictEqual(problemsOf(config, { A: "secret-a" }), [
      `variables[1].value: a secret variable's value must come from the environment: \${env:NAME}`,
      `variables[2].value: a secret variable's value must come from the environment: \${env:NAME}`,
      `variables[3].value: \${env:MISSING}: MISSING is not set in the environment`,
      `monitors[0].check.url: \${env:URL}: URL is not set in the environment`
    ])
    const desired = valid(
      { ...config, variables: [config.variables[0], config.variables[3]] },
      { A: "secret-a", MISSING: "now set", URL: "https://shop.example/from-env" }
    )
    assert.strictEqual(desired.variables[0]!.item.value, "secret-a")
    assert.strictEqual(
      desired.monitors[0]!.item.check.type === "http" && desired.monitors[0]!.item.check.url,
      "https://shop.example/from-env"
    )
  })

  it("a value read from the environment never shows in a problem, a secret variable's least of all", () => {
    const long = "x".repeat(5000)
    const problems = problemsOf(
      {
        project: "shop",
        variables: [
          { key: "big", is_secret: true, value: fromEnv("BIG") },
          { key: "n", is_secret: true, value: fromEnv("SHORT") }
        ],
        monitors: [monitor("api", { check: { ...http(), timeout: fromEnv("TIMEOUT") }, group: 7 })]
      },
      { BIG: long, SHORT: "pw", TIMEOUT: "ten seconds" }
    )
    const text = problems.join("\n")
    assert.notInclude(text, long.slice(0, 100))
    assert.notInclude(text, "ten seconds")
    assert.include(at(problems, "monitors[0].check.timeout"), `\${env:TIMEOUT}`)
    assert.include(at(problems, "variables[0].value"), "at most 4096")
  })

  it("a file that is not a map is one problem", () => {
    for (const value of [null, [], "project: shop", 42]) {
      assert.deepStrictEqual(problemsOf(value), [
        ": the file must hold a map: project, then any of variables, channels, monitors, status_pages and maintenance"
      ])
    }
  })
})
