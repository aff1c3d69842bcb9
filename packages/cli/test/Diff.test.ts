import { assert, describe, it } from "@effect/vitest"
import * as Option from "effect/Option"
import * as Diff from "../src/Diff.js"
import type * as Plan from "../src/Plan.js"
import { SECRET } from "../src/Plan.js"
import { decode, desired, empty, type State, stored, storedHttpCheck, uuid } from "./support/Fixtures.js"

const fromEnv = (name: string) => `\${env:${name}}`

const env = {
  API_TOKEN: "t0ps3cret-token",
  HOOK_AUTH: "Bearer hook-secret-value",
  LOGIN_TOKEN: "login-secret-value"
}

const shop = {
  project: "shop",
  variables: [
    { key: "api_token", is_secret: true, value: fromEnv("API_TOKEN") },
    { key: "base_url", value: "https://shop.example" }
  ],
  channels: [
    { key: "ops", name: "Ops", kind: "slack", config: { webhook_url: "https://hooks.slack.example/services/T/B/X" } },
    {
      key: "hook",
      name: "Hook",
      kind: "webhook",
      config: { url: "https://hooks.example/in", headers: { Authorization: fromEnv("HOOK_AUTH") } }
    },
    { key: "pager", name: "Pager", kind: "pagerduty", config: { routing_key: "a".repeat(32) } }
  ],
  monitors: [
    {
      key: "api",
      name: "API",
      check: { type: "http", url: "{{base_url}}/health", headers: { Authorization: "Bearer {{api_token}}" } },
      alerts: ["ops", "pager"],
      tags: ["prod"]
    },
    {
      key: "db",
      name: "DB",
      check: { type: "tcp", host: "db.example", port: 5432 },
      interval: 30,
      regions: ["eu-west", "us-east"],
      region_policy: { count: 2 }
    },
    { key: "cron", name: "Nightly", check: { type: "heartbeat", period: 86400, grace: 3600 } },
    {
      key: "login",
      name: "Login",
      check: { type: "http", url: "https://shop.example/login", bearer_token: fromEnv("LOGIN_TOKEN") }
    }
  ],
  status_pages: [
    {
      key: "public",
      slug: "shop-status",
      name: "Shop status",
      published: true,
      components: [{ monitor: "api", public_name: "Storefront" }, { monitor: "db" }]
    }
  ],
  maintenance: [
    {
      key: "upgrade",
      title: "DB upgrade",
      starts_at: "2030-05-01T22:00:00Z",
      ends_at: "2030-05-01T23:00:00Z",
      components: ["db"]
    }
  ]
}

const shopDesired = desired(shop, env)

// The config with one list item changed.
const edit = <K extends keyof typeof shop>(
  list: K,
  key: string,
  change: (item: Record<string, unknown>) => Record<string, unknown>
) => {
  const items = shop[list] as ReadonlyArray<Record<string, unknown>>
  return { ...shop, [list]: items.map((item) => (item["key"] === key ? change(item) : item)) }
}

const plan = (config: Record<string, unknown>, state: State) => Diff.diff(desired(config, env), decode(state))

const only = (p: Plan.Plan): Plan.Change => {
  assert.strictEqual(p.changes.length, 1, JSON.stringify(p.changes.map((c) => [c.action, c.type, c.key])))
  return p.changes[0]!
}

const fieldsOf = (change: Plan.Change) =>
  change.action === "delete"
    ? []
    : change.fields.map((f) => [
        f.field,
        Option.getOrElse(f.old, () => "(none)"),
        Option.getOrElse(f.new, () => "(none)")
      ])

const fieldNames = (change: Plan.Change) => (change.action === "delete" ? [] : change.fields.map((f) => f.field))

const outline = (p: Plan.Plan) => p.changes.map((c) => `${c.action} ${c.type} ${c.key}`)

describe("Diff", () => {
  it("against an empty org every item is a create, variables and channels before monitors, monitors before pages and windows", () => {
    const p = Diff.diff(shopDesired, decode(empty()))
    assert.deepStrictEqual(outline(p), [
      "create variable api_token",
      "create variable base_url",
      "create channel ops",
      "create channel hook",
      "create channel pager",
      "create monitor api",
      "create monitor db",
      "create monitor cron",
      "create monitor login",
      "create status_page public",
      "create maintenance upgrade"
    ])
    assert.strictEqual(p.unchanged, 0)
    assert.deepStrictEqual(p.ids.channels, new Map())
  })

  it("a create lists the fields the file sets with the API's defaults, references by key, secrets as (secret)", () => {
    const p = Diff.diff(shopDesired, decode(empty()))
    const api = p.changes.find((c) => c.key === "api")!
    const fields = Object.fromEntries(fieldsOf(api).map(([field, , value]) => [field, value]))
    assert.strictEqual(fields["check.url"], "{{base_url}}/health")
    assert.strictEqual(fields["check.method"], "GET")
    assert.strictEqual(fields["check.expected_status"], "2xx")
    assert.deepStrictEqual(fields["alerts"], ["ops", "pager"])
    assert.strictEqual(fields["alert_confirmations"], 2)
    assert.strictEqual(fields["recovery_period_secs"], 180)
    // Left to the service: the plan's default interval and the instance's regions.
    assert.notProperty(fields, "interval")
    assert.notProperty(fields, "regions")

    const token = p.changes.find((c) => c.key === "api_token")!
    assert.deepStrictEqual(fieldsOf(token), [
      ["is_secret", "(none)", true],
      ["value", "(none)", SECRET]
    ])
    assert.isTrue(token.action === "create" && token.fields[1]!.secret)

    const login = p.changes.find((c) => c.key === "login")!
    assert.deepInclude(fieldsOf(login), ["check.bearer_token", "(none)", SECRET])
  })

  it("a create never carries a secret's value anywhere in the plan", () => {
    const p = Diff.diff(shopDesired, decode(empty()))
    const text = JSON.stringify(
      p.changes.map((c) => (c.action === "delete" ? c : c.fields)),
      (_k, v) => (Option.isOption(v) ? Option.getOrNull(v) : v)
    )
    for (const secret of [env.API_TOKEN, env.HOOK_AUTH, env.LOGIN_TOKEN, "a".repeat(32), "hooks.slack.example"]) {
      assert.notInclude(text, secret)
    }
  })

  it("the state the file was applied to plans no change, every managed resource unchanged", () => {
    const state = stored(shopDesired, { interval: 300, regions: ["eu-west"] })
    const p = Diff.diff(shopDesired, decode(state))
    assert.deepStrictEqual(outline(p), [])
    assert.strictEqual(p.unchanged, 11)
    assert.deepStrictEqual(
      [...p.ids.channels.keys(), ...p.ids.monitors.keys()],
      ["ops", "hook", "pager", "api", "db", "cron", "login"]
    )
    assert.strictEqual(p.ids.monitors.get("db"), state.targets[1]!["id"])
  })

  it("a field the file leaves out that equals the service's default is no change; one the file sets is", () => {
    const config = {
      project: "shop",
      monitors: [{ key: "web", name: "Web", check: { type: "http", url: "https://a.example" } }]
    }
    // As the API answers a monitor created from that item on a plan whose default interval is 180 s.
    const state = empty()
    state.targets.push({
      id: uuid(1),
      org_id: uuid(9),
      created_at: "2026-01-01T00:00:00Z",
      updated_at: "2026-01-01T00:00:00Z",
      write_source: "iac",
      name: "Web",
      check: storedHttpCheck("https://a.example"),
      interval: 180,
      enabled: true,
      tags: [],
      group: null,
      alerts: [],
      alert_confirmations: 2,
      notify_recovery: true,
      renotify_interval_secs: 3600,
      recovery_period_secs: 180,
      region_policy: "majority",
      regions: ["eu-west", "us-east"],
      managed_by: { project: "shop", key: "web" }
    })
    assert.deepStrictEqual(outline(plan(config, state)), [])

    const changed = plan(
      {
        project: "shop",
        monitors: [
          {
            key: "web",
            name: "Web",
            check: { type: "http", url: "https://a.example" },
            interval: 60,
            notify_recovery: false
          }
        ]
      },
      state
    )
    assert.deepStrictEqual(fieldsOf(only(changed)), [
      ["interval", 180, 60],
      ["notify_recovery", true, false]
    ])
  })

  it("an update names each changed field under the check and its old and new value; the id stays", () => {
    const state = stored(shopDesired)
    const p = plan(
      edit("monitors", "api", (m) => ({
        ...m,
        check: {
          type: "http",
          url: "{{base_url}}/healthz",
          method: "HEAD",
          headers: { Authorization: "Bearer {{api_token}}", "X-Trace": "1" }
        },
        tags: ["prod", "eu"]
      })),
      state
    )
    const change = only(p)
    assert.strictEqual(change.action, "update")
    assert.strictEqual(change.action === "update" && change.id, state.targets[0]!["id"])
    assert.deepStrictEqual(fieldsOf(change), [
      ["check.url", "{{base_url}}/health", "{{base_url}}/healthz"],
      ["check.method", "GET", "HEAD"],
      ["check.headers.X-Trace", "(none)", "1"],
      ["tags", ["prod"], ["eu", "prod"]]
    ])
  })

  it("a field the file takes away is a change to nothing; a region policy that changes form is one change", () => {
    const state = stored(shopDesired)
    const p = plan(
      edit("monitors", "db", (m) => ({
        ...m,
        region_policy: "all",
        check: { type: "tcp", host: "db.example", port: 5432, timeout: 5 }
      })),
      state
    )
    assert.deepStrictEqual(fieldsOf(only(p)), [
      ["check.timeout", 10, 5],
      ["region_policy", { count: 2 }, "all"]
    ])
    const dropped = plan(
      edit("monitors", "api", (m) => ({ ...m, check: { type: "http", url: "{{base_url}}/health" } })),
      state
    )
    assert.deepStrictEqual(fieldsOf(only(dropped)), [["check.headers.Authorization", "Bearer {{api_token}}", "(none)"]])
  })

  it("tags and alerts compare as sets; alerts show channel keys", () => {
    const state = stored(shopDesired)
    assert.deepStrictEqual(
      outline(
        plan(
          edit("monitors", "api", (m) => ({ ...m, alerts: ["pager", "ops"] })),
          state
        )
      ),
      []
    )
    const p = plan(
      edit("monitors", "api", (m) => ({ ...m, alerts: ["pager", "hook"] })),
      state
    )
    assert.deepStrictEqual(fieldsOf(only(p)), [["alerts", ["ops", "pager"], ["hook", "pager"]]])
  })

  it("a secret's value is compared as present or absent: a new value is no change, taking it away is", () => {
    const state = stored(shopDesired)
    assert.deepStrictEqual(outline(Diff.diff(desired(shop, { ...env, LOGIN_TOKEN: "rotated" }), decode(state))), [])
    const p = plan(
      edit("monitors", "login", (m) => ({ ...m, check: { type: "http", url: "https://shop.example/login" } })),
      state
    )
    const change = only(p)
    assert.deepStrictEqual(fieldsOf(change), [["check.bearer_token", SECRET, null]])
    assert.isTrue(change.action === "update" && change.fields[0]!.secret)
    // A secret variable's value is never read back: changing it in the environment changes nothing in the plan.
    assert.deepStrictEqual(outline(Diff.diff(desired(shop, { ...env, API_TOKEN: "other" }), decode(state))), [])
  })

  it("a changed check.type is a replace, led by the type; what names the monitor changes with it", () => {
    const state = stored(shopDesired)
    const p = plan(
      edit("monitors", "db", (m) => ({ ...m, check: { type: "ping", host: "db.example" } })),
      state
    )
    assert.deepStrictEqual(outline(p), [
      "replace monitor db",
      "update status_page public",
      "update maintenance upgrade"
    ])
    const replace = p.changes[0]!
    assert.strictEqual(replace.action === "replace" && replace.reason, "check.type")
    assert.strictEqual(replace.action === "replace" && replace.id, state.targets[1]!["id"])
    assert.deepStrictEqual(fieldsOf(replace).slice(0, 2), [
      ["check.type", "tcp", "ping"],
      ["check.port", 5432, "(none)"]
    ])
    const page = p.changes[1]!
    assert.deepStrictEqual(fieldsOf(page), [
      [
        "components",
        [
          { monitor: "api", public_name: "Storefront", public_description: null, public_group: null },
          { monitor: "db (replaced)", public_name: null, public_description: null, public_group: null }
        ],
        [
          { monitor: "api", public_name: "Storefront", public_description: null, public_group: null },
          { monitor: "db", public_name: null, public_description: null, public_group: null }
        ]
      ]
    ])
    assert.deepStrictEqual(fieldsOf(p.changes[2]!), [["components", ["db (replaced)"], ["db"]]])
    // A replaced monitor's id is not one to reference: apply resolves "db" to the new one.
    assert.isFalse(p.ids.monitors.has("db"))
    assert.isTrue(p.ids.monitors.has("api"))
  })

  it("a channel's changed kind and a variable's changed is_secret are replaces too", () => {
    const state = stored(shopDesired)
    const p = plan(
      {
        ...edit("channels", "ops", () => ({
          key: "ops",
          name: "Ops",
          kind: "email",
          config: { addresses: ["ops@shop.example"] }
        })),
        variables: [
          { key: "api_token", is_secret: false, value: fromEnv("API_TOKEN") },
          { key: "base_url", value: "https://shop.example" }
        ]
      },
      state
    )
    assert.deepStrictEqual(outline(p), ["replace variable api_token", "replace channel ops", "update monitor api"])
    assert.strictEqual(p.changes[0]!.action === "replace" && p.changes[0]!.reason, "is_secret")
    // The service never answered the secret, so its old value reads (secret) and the new one is shown.
    assert.deepStrictEqual(fieldsOf(p.changes[0]!), [
      ["is_secret", true, false],
      ["value", SECRET, env.API_TOKEN]
    ])
    assert.strictEqual(p.changes[1]!.action === "replace" && p.changes[1]!.reason, "kind")
    assert.deepStrictEqual(fieldsOf(p.changes[2]!), [["alerts", ["ops (replaced)", "pager"], ["ops", "pager"]]])
  })

  it("a non-secret variable's value is compared", () => {
    const p = plan(
      edit("variables", "base_url", (v) => ({ ...v, value: "https://shop.example/v2" })),
      stored(shopDesired)
    )
    assert.deepStrictEqual(fieldsOf(only(p)), [["value", "https://shop.example", "https://shop.example/v2"]])
  })

  it("channels: the config's defaults and a generated webhook secret are no change; a config field is", () => {
    const state = stored(shopDesired)
    // pagerduty's severity defaults to critical, as the service stored it.
    assert.strictEqual(
      state.channels[2]!["config"] && (state.channels[2]!["config"] as Record<string, unknown>)["severity"],
      "critical"
    )
    const p = plan(
      edit("channels", "pager", (c) => ({
        ...c,
        enabled: false,
        config: { routing_key: "a".repeat(32), severity: "warning" }
      })),
      state
    )
    assert.deepStrictEqual(fieldsOf(only(p)), [
      ["enabled", true, false],
      ["config.severity", "critical", "warning"]
    ])
    const withSecret = plan(
      edit("channels", "hook", (c) => ({
        ...c,
        config: { url: "https://hooks.example/in", secret: "0123456789abcdef" }
      })),
      state
    )
    // A secret the file now sets is already there (the generated one): no change; the header it dropped is.
    const change = only(withSecret)
    assert.deepStrictEqual(fieldsOf(change), [["config.headers.Authorization", SECRET, "(none)"]])
    assert.isTrue(change.action === "update" && change.fields[0]!.secret)
  })

  it("status pages: defaults, branding, component order and public fields, and access", () => {
    const state = stored(shopDesired)
    const page = (change: Record<string, unknown>) =>
      plan(
        edit("status_pages", "public", (p) => ({ ...p, ...change })),
        state
      )
    assert.deepStrictEqual(outline(page({ public_locale: "en", branding: { theme: "auto" } })), [])
    assert.deepStrictEqual(fieldsOf(only(page({ published: false, branding: { primary_color: "#AA0000" } }))), [
      ["published", true, false],
      ["branding.primary_color", null, "#aa0000"]
    ])
    const reordered = page({ components: [{ monitor: "db" }, { monitor: "api", public_name: "Shop" }] })
    assert.deepStrictEqual(fieldNames(only(reordered)), ["components"])
    const access = page({ access: { protected: true, email_code: { enabled: true, allow: ["@Shop.example"] } } })
    assert.deepStrictEqual(fieldsOf(only(access)), [
      [
        "access",
        null,
        {
          protected: true,
          email_code: { enabled: true, allow: ["@shop.example"] },
          session_days: null,
          recheck_days: null,
          password: { enabled: false }
        }
      ]
    ])
  })

  it("maintenance: times compare as instants, components as a set of monitors", () => {
    const state = stored(shopDesired)
    const same = plan(
      edit("maintenance", "upgrade", (w) => ({ ...w, starts_at: "2030-05-02T00:00:00+02:00" })),
      state
    )
    assert.deepStrictEqual(outline(same), [])
    const p = plan(
      edit("maintenance", "upgrade", (w) => ({ ...w, ends_at: "2030-05-02T01:00:00Z", components: ["db", "api"] })),
      state
    )
    assert.deepStrictEqual(fieldsOf(only(p)), [
      ["ends_at", "2030-05-01T23:00:00.000Z", "2030-05-02T01:00:00.000Z"],
      ["components", ["db"], ["api", "db"]]
    ])
  })

  it("what the project manages and the file no longer has is deleted, dependents first, after every other change", () => {
    const state = stored(shopDesired)
    const p = plan(
      { project: "shop", variables: [shop.variables[1]], monitors: [shop.monitors[2]], channels: [] },
      state
    )
    assert.deepStrictEqual(outline(p), [
      "delete maintenance upgrade",
      "delete status_page public",
      "delete monitor api",
      "delete monitor db",
      "delete monitor login",
      "delete channel ops",
      "delete channel hook",
      "delete channel pager",
      "delete variable api_token"
    ])
    const api = p.changes[2]!
    assert.deepStrictEqual(api.action === "delete" && { id: api.id, name: api.name }, {
      id: String(state.targets[0]!["id"]),
      name: "API"
    })
  })

  it("deletes come after the updates that stop naming what is deleted", () => {
    const state = stored(shopDesired)
    const p = plan(
      {
        ...edit("monitors", "api", (m) => ({ ...m, alerts: ["pager"] })),
        channels: shop.channels.filter((c) => c.key !== "ops")
      },
      state
    )
    assert.deepStrictEqual(outline(p), ["update monitor api", "delete channel ops"])
    assert.deepStrictEqual(fieldsOf(p.changes[0]!), [["alerts", ["ops (deleted)", "pager"], ["pager"]]])
  })

  it("resources of another project or of nobody never appear, even under a key the file uses", () => {
    const theirs = stored(desired({ ...shop, project: "other" }, env), { firstId: 100 })
    const nobody = stored(shopDesired, { firstId: 200 })
    for (const list of [nobody.variables, nobody.channels, nobody.targets, nobody.maintenance]) {
      for (const r of list) r["managed_by"] = null
    }
    for (const p of nobody.status_pages) p.page["managed_by"] = null
    const state: State = {
      variables: [...theirs.variables, ...nobody.variables],
      channels: [...theirs.channels, ...nobody.channels],
      targets: [...theirs.targets, ...nobody.targets],
      status_pages: [...theirs.status_pages, ...nobody.status_pages],
      maintenance: [...theirs.maintenance, ...nobody.maintenance]
    }
    // Every item is created; nothing of theirs or nobody's is updated or deleted.
    const p = Diff.diff(shopDesired, decode(state))
    assert.isTrue(p.changes.every((c) => c.action === "create"))
    assert.strictEqual(p.changes.length, 11)
    const emptied = Diff.diff(desired({ project: "shop" }), decode(state))
    assert.deepStrictEqual(outline(emptied), [])
    assert.strictEqual(emptied.unchanged, 0)
  })

  it("a monitor bound to a channel the project does not manage loses it, shown by the channel's id", () => {
    const state = stored(shopDesired)
    const bindings = state.targets[0]!["alerts"] as Array<Record<string, unknown>>
    bindings.push({ channel_id: uuid(500) })
    assert.deepStrictEqual(fieldsOf(only(Diff.diff(shopDesired, decode(state)))), [
      ["alerts", [uuid(500), "ops", "pager"], ["ops", "pager"]]
    ])
  })

  it("a second resource under a key already matched is deleted; the first is the item's", () => {
    const state = stored(shopDesired)
    state.channels.push({ ...state.channels[0]!, id: uuid(600), name: "Ops copy" })
    const p = Diff.diff(shopDesired, decode(state))
    assert.deepStrictEqual(outline(p), ["delete channel ops"])
    assert.strictEqual(p.changes[0]!.action === "delete" && p.changes[0]!.id, uuid(600))
    assert.strictEqual(p.ids.channels.get("ops"), state.channels[0]!["id"])
  })

  it("a cancelled window is history: the file's item is created again and the old one never deleted; an ended one is kept", () => {
    const cancelled = stored(shopDesired, { windowStatus: { upgrade: "cancelled" } })
    assert.deepStrictEqual(outline(Diff.diff(shopDesired, decode(cancelled))), ["create maintenance upgrade"])
    const withoutIt = desired({ ...shop, maintenance: [] }, env)
    assert.deepStrictEqual(outline(Diff.diff(withoutIt, decode(cancelled))), [])
    const completed = stored(shopDesired, { windowStatus: { upgrade: "completed" } })
    assert.deepStrictEqual(outline(Diff.diff(shopDesired, decode(completed))), [])
    assert.deepStrictEqual(outline(Diff.diff(withoutIt, decode(completed))), [])
    const running = stored(shopDesired, { windowStatus: { upgrade: "running" } })
    assert.deepStrictEqual(outline(Diff.diff(withoutIt, decode(running))), ["delete maintenance upgrade"])
  })
})
