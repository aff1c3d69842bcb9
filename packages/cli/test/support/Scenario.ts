/**
 * One plan with every action, for the renderers' tests: a secret variable created, a monitor updated, a monitor
 * replaced (its check type changed), a channel deleted, and one channel left as it was.
 */
import * as Diff from "../../src/Diff.js"
import type * as Plan from "../../src/Plan.js"
import { decode, desired, stored } from "./Fixtures.js"

const before = desired({
  project: "shop",
  channels: [
    { key: "ops", name: "Ops", kind: "email", config: { addresses: ["ops@shop.example"] } },
    { key: "old", name: "Old", kind: "email", config: { addresses: ["old@shop.example"] } }
  ],
  monitors: [
    {
      key: "api",
      name: "API",
      check: { type: "http", url: "https://shop.example/health" },
      interval: 60,
      alerts: ["ops"]
    },
    { key: "db", name: "DB", check: { type: "tcp", host: "db.example", port: 5432 } }
  ]
})

export const secretValue = "s3cr3t-value"

const after = desired(
  {
    project: "shop",
    variables: [{ key: "token", is_secret: true, value: `\${env:TOKEN}` }],
    channels: [{ key: "ops", name: "Ops", kind: "email", config: { addresses: ["ops@shop.example"] } }],
    monitors: [
      {
        key: "api",
        name: "API",
        check: {
          type: "http",
          url: "https://shop.example/health",
          headers: { Authorization: "Bearer {{token}}" }
        },
        interval: 30,
        alerts: ["ops"]
      },
      { key: "db", name: "DB", check: { type: "ping", host: "db.example" } }
    ]
  },
  { TOKEN: secretValue }
)

export const everyAction: Plan.Plan = Diff.diff(after, decode(stored(before)))

export const noChange: Plan.Plan = Diff.diff(before, decode(stored(before)))
