import { assert, describe, it } from "@effect/vitest"
import { SignalmanError } from "@signalman/sdk/SignalmanError"
import * as Applying from "../src/Applying.js"
import * as ApplySteps from "../src/ApplySteps.js"
import * as Diff from "../src/Diff.js"
import * as Requests from "../src/Requests.js"
import { decode, desired, stored, storedHttpCheck } from "./support/Fixtures.js"

const http = (path: string) => ({ type: "http", url: `https://shop.example/${path}` })

const before = desired({
  project: "shop",
  channels: [{ key: "ops", name: "Ops", kind: "email", config: { addresses: ["ops@shop.example"] } }],
  monitors: [
    { key: "api", name: "API", check: http("api"), interval: 60, tags: ["prod"], alerts: ["ops"] },
    { key: "db", name: "DB", check: { type: "tcp", host: "db.example", port: 5432 } },
    { key: "old", name: "Old", check: http("old") }
  ]
})

const after = desired({
  project: "shop",
  channels: [
    { key: "ops", name: "Ops", kind: "email", config: { addresses: ["ops@shop.example"] } },
    { key: "pager", name: "Pager", kind: "email", config: { addresses: ["pager@shop.example"] } }
  ],
  monitors: [
    { key: "api", name: "API", check: http("api"), interval: 30, alerts: ["ops", "pager"] },
    { key: "db", name: "DB", check: { type: "ping", host: "db.example" } },
    { key: "m1", name: "M1", check: http("1") },
    { key: "m2", name: "M2", check: http("2") },
    { key: "m3", name: "M3", check: http("3") }
  ]
})

const plan = Diff.diff(after, decode(stored(before)))

const outline = (steps: ReadonlyArray<ApplySteps.Step>) =>
  steps.map((step) => [
    step.step,
    ApplySteps.changesOf(step)
      .map((change) => `${change.type} ${change.key}`)
      .join(", ")
  ])

describe("ApplySteps", () => {
  it("orders by dependency: a replace's delete first, creates (monitors in bulk batches), updates, then deletes", () => {
    assert.deepStrictEqual(outline(ApplySteps.steps(plan, 2)), [
      ["create", "channel pager"],
      ["delete", "monitor db"],
      ["bulk", "monitor db, monitor m1"],
      ["bulk", "monitor m2, monitor m3"],
      ["update", "monitor api"],
      ["delete", "monitor old"]
    ])
  })

  it("one monitor to create is a single create, a last batch of one too; no changes is no step", () => {
    assert.deepStrictEqual(
      outline(ApplySteps.steps(plan, 3)).filter(([step]) => step === "bulk" || step === "create"),
      [
        ["create", "channel pager"],
        ["bulk", "monitor db, monitor m1, monitor m2"],
        ["create", "monitor m3"]
      ]
    )
    assert.deepStrictEqual(ApplySteps.steps(Diff.diff(before, decode(stored(before)))), [])
  })

  it("a replace's halves say which half; the report lists what was applied, what failed and what was not", () => {
    const steps = ApplySteps.steps(plan, 2)
    assert.deepStrictEqual(steps.slice(1, 3).flatMap(Applying.lines), [
      "- monitor db (replaced: deleted)",
      "+ monitor db (replaced: created again)",
      "+ monitor m1"
    ])
    const text = Applying.render(
      {
        applied: ["+ channel pager"],
        failed: { lines: ["- monitor db (replaced: deleted)"], reason: "Not found (NOT_FOUND)" },
        notApplied: ["+ monitor m1"]
      },
      plan
    )
    assert.strictEqual(
      text,
      [
        "Applied (1):",
        "  + channel pager",
        "Failed: - monitor db (replaced: deleted): Not found (NOT_FOUND)",
        "Not applied (2):",
        "  - monitor db (replaced: deleted)",
        "  + monitor m1"
      ].join("\n")
    )
  })
})

describe("Applying.reason", () => {
  it("a refused bulk create says which monitor its targets[i] is; another refusal is the service's own words", () => {
    const refusal = (field: string | null) =>
      new SignalmanError({
        status: 422,
        code: "REGION_INVALID",
        message: "No region mars",
        field,
        details: {},
        traceId: "t"
      })
    const [, , bulk] = ApplySteps.steps(plan, 2)
    assert(bulk !== undefined)
    assert.strictEqual(
      Applying.reason(bulk, refusal("targets[1].regions")),
      "No region mars (REGION_INVALID, targets[1].regions): monitor m1"
    )
    assert.strictEqual(Applying.reason(bulk, refusal(null)), "No region mars (REGION_INVALID)")
  })
})

describe("Requests", () => {
  it("an update sends only the changed fields, each as the file resolves it (a removed list is empty)", () => {
    const api = plan.changes.find((change) => change.key === "api" && change.action === "update")
    assert(api !== undefined && api.action === "update" && api.type === "monitor")
    const ids: Requests.Ids = { channel: (key) => `id-${key}`, monitor: (key) => `id-${key}` }
    assert.deepStrictEqual(Requests.updateMonitor(api.desired, api.fields, ids), {
      interval: 30,
      tags: [],
      alerts: [{ channel_id: "id-ops" }, { channel_id: "id-pager" }]
    })
  })

  it("a create is the item's body without its key (decoded, so the check's defaults written out)", () => {
    const m1 = plan.changes.find((change) => change.key === "m1")
    assert(m1 !== undefined && m1.type === "monitor" && m1.action === "create")
    assert.deepStrictEqual(Requests.createMonitor(m1.desired, { channel: () => "c", monitor: () => "m" }), {
      name: "M1",
      check: storedHttpCheck("https://shop.example/1")
    })
  })
})
