import { assert, describe, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Diff from "../src/Diff.js"
import * as Plan from "../src/Plan.js"
import * as PullConfig from "../src/PullConfig.js"
import * as Validation from "../src/Validation.js"
import { decode, desired, type State, stored } from "./support/Fixtures.js"

describe("PullConfig keys", () => {
  it("a key is the name in lower case, accents dropped, other runs one hyphen, at most 63 characters", () => {
    assert.strictEqual(PullConfig.slug("Storefront API (EU)!", "monitor"), "storefront-api-eu")
    assert.strictEqual(PullConfig.slug("Ünïcode Café", "monitor"), "unicode-cafe")
    assert.strictEqual(PullConfig.slug("_db_primary_", "monitor"), "db_primary")
    assert.strictEqual(PullConfig.slug("!!!", "monitor"), "monitor")
    assert.strictEqual(PullConfig.slug("a".repeat(80), "monitor"), "a".repeat(63))
  })

  it("keys are unique in their list, a kept key is never taken by another, and every one is valid", () => {
    const keys = PullConfig.keys(
      [
        { name: "API" },
        { name: "api" },
        { name: "Other", keep: "api" },
        { name: "x".repeat(70) },
        { name: "x".repeat(70) }
      ],
      "monitor"
    )
    assert.deepStrictEqual(keys, ["api-2", "api-3", "api", "x".repeat(63), `${"x".repeat(61)}-2`])
    for (const key of keys) assert.match(key, /^[a-z0-9][a-z0-9_-]{0,62}$/)
  })

  it("a secret's environment variable is upper case", () => {
    assert.strictEqual(PullConfig.envName("channel", "ops-eu", "webhook_url"), "CHANNEL_OPS_EU_WEBHOOK_URL")
  })
})

const fromEnv = (name: string) => `\${env:${name}}`

const made = desired(
  {
    project: "made",
    variables: [
      { key: "api_token", is_secret: true, value: fromEnv("T") },
      { key: "base_url", value: "https://shop.example" }
    ],
    channels: [
      { key: "c1", name: "Ops team", kind: "slack", config: { webhook_url: "https://hooks.slack.example/T/B/X" } },
      { key: "c2", name: "Hook", kind: "webhook", config: { url: "https://hooks.example/in" } }
    ],
    monitors: [
      {
        key: "m1",
        name: "Storefront API",
        check: { type: "http", url: "{{base_url}}/health", bearer_token: "abc-secret-token" },
        alerts: ["c1", "c2"],
        tags: ["prod"]
      },
      { key: "m2", name: "Storefront API", check: { type: "tcp", host: "db.example", port: 5432 }, enabled: false }
    ],
    status_pages: [
      {
        key: "p",
        slug: "shop-status",
        name: "Shop",
        published: true,
        components: [{ monitor: "m2" }, { monitor: "m1", public_name: "API" }]
      }
    ],
    maintenance: [
      {
        key: "w",
        title: "DB upgrade",
        starts_at: "2030-05-01T22:00:00Z",
        ends_at: "2030-05-01T23:00:00Z",
        components: ["m2"]
      },
      { key: "done", title: "Old", starts_at: "2020-05-01T22:00:00Z", ends_at: "2020-05-01T23:00:00Z" }
    ]
  },
  { T: "secret-token" }
)

// The org as made through the UI: nobody manages anything.
const unmanaged = (state: State): State => {
  const strip = <R extends Record<string, unknown>>(r: R) => ({ ...r, managed_by: null })
  return {
    variables: state.variables.map(strip),
    channels: state.channels.map(strip),
    targets: state.targets.map(strip),
    status_pages: state.status_pages.map((p) => ({ ...p, page: strip(p.page) })),
    maintenance: state.maintenance.map(strip)
  }
}

describe("PullConfig.build", () => {
  const state = unmanaged(stored(made, { windowStatus: { done: "completed" } }))
  const result = PullConfig.build("shop", decode(state))

  it("writes keys from names, references by key, secrets as placeholders, and leaves history out", () => {
    const config = result.config as Record<string, ReadonlyArray<Record<string, unknown>>>
    assert.deepStrictEqual(
      config["monitors"]!.map((m) => [m["key"], m["alerts"] ?? []]),
      [
        ["storefront-api", ["ops-team", "hook"]],
        ["storefront-api-2", []]
      ]
    )
    assert.deepStrictEqual(config["status_pages"]![0]!["components"], [
      { monitor: "storefront-api-2" },
      { monitor: "storefront-api", public_name: "API" }
    ])
    assert.deepStrictEqual(config["variables"]![0], { key: "api_token", is_secret: true, value: fromEnv("API_TOKEN") })
    assert.deepStrictEqual(
      config["maintenance"]!.map((w) => w["key"]),
      ["db-upgrade"]
    )
    assert.deepStrictEqual(result.env, [
      "API_TOKEN",
      "CHANNEL_OPS_TEAM_WEBHOOK_URL",
      "MONITOR_STOREFRONT_API_BEARER_TOKEN"
    ])
    assert.notInclude(JSON.stringify(config), "***")
    assert.deepStrictEqual(result.notes, [])
  })

  it("the pulled file validates, and once its resources are adopted under their keys it plans no change", () => {
    const env = Object.fromEntries(result.env.map((name) => [name, `https://secrets.example/${name}`]))
    const validated = Validation.validate(result.config, env)
    assert(Either.isRight(validated), JSON.stringify(Either.isLeft(validated) ? validated.left : []))
    const keyOf = new Map(result.pulled.map((p) => [p.id, p.key]))
    const adopt = <R extends Record<string, unknown>>(r: R) => {
      const key = keyOf.get(String(r["id"]))
      return { ...r, managed_by: key === undefined ? null : { project: "shop", key } }
    }
    const adopted: State = {
      variables: state.variables.map(adopt),
      channels: state.channels.map(adopt),
      targets: state.targets.map(adopt),
      status_pages: state.status_pages.map((p) => ({ ...p, page: adopt(p.page) })),
      maintenance: state.maintenance.map(adopt)
    }
    const plan = Diff.diff(validated.right, decode(adopted))
    assert.deepStrictEqual(plan.changes, [])
    assert.strictEqual(Plan.summary(plan).unchanged, result.pulled.length)
  })

  it("what another project manages is left to it, and a reference to it is dropped and said", () => {
    const other = stored(made)
    const mixed: State = { ...unmanaged(other), channels: other.channels }
    const pulled = PullConfig.build("shop", decode(mixed))
    assert.deepStrictEqual(
      pulled.pulled.filter((p) => p.type === "channel"),
      []
    )
    assert.strictEqual(pulled.notes.length, 2)
    assert.match(pulled.notes[0]!, /^monitor storefront-api: alert channel .+ belongs to another project$/)
  })
})
