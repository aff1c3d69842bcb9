/**
 * The same config as signalman.yaml, in TypeScript: `defineConfig` is typed from the CLI's schemas, so an editor
 * completes every field and `tsc` refuses a misspelt one.
 */
import { defineConfig } from "@signalman/cli"

const origin = "https://shop.example"

export default defineConfig({
  project: "shop",
  variables: [
    { key: "api_token", is_secret: true, value: "${env:SHOP_API_TOKEN}" },
    { key: "base_url", value: origin }
  ],
  channels: [
    { key: "ops", name: "Ops on Slack", kind: "slack", config: { webhook_url: "${env:SLACK_WEBHOOK_URL}" } },
    { key: "oncall", name: "On call", kind: "email", config: { addresses: ["oncall@shop.example"] } }
  ],
  monitors: [
    {
      key: "api",
      name: "Storefront API",
      check: {
        type: "http",
        url: "{{base_url}}/api/health",
        headers: { Authorization: "Bearer {{api_token}}" },
        expected_status: 200
      },
      interval: 60,
      alerts: ["ops", "oncall"],
      tags: ["prod", "storefront"]
    },
    {
      key: "checkout",
      name: "Checkout",
      check: { type: "http", url: `${origin}/checkout`, expected_body_contains: "Pay now" },
      alerts: ["ops"]
    },
    { key: "db", name: "Database", check: { type: "tcp", host: "db.shop.example", port: 5432 }, alerts: ["oncall"] },
    {
      key: "certificate",
      name: "TLS certificate",
      check: { type: "tls_cert", host: "shop.example", warn_days: 30 },
      interval: 43200
    },
    { key: "nightly-export", name: "Nightly export", check: { type: "heartbeat", period: 86400, grace: 3600 } }
  ],
  status_pages: [
    {
      key: "public",
      slug: "shop-status",
      name: "Shop status",
      published: true,
      branding: { primary_color: "#0a7d5a", theme: "auto" },
      components: [
        { monitor: "api", public_name: "Storefront" },
        { monitor: "checkout", public_name: "Checkout" },
        { monitor: "db", public_name: "Database", public_group: "Backend" }
      ]
    }
  ],
  maintenance: [
    {
      key: "db-upgrade-2030",
      title: "Database upgrade",
      description: "Orders may be delayed for a few minutes.",
      starts_at: "2030-05-01T22:00:00Z",
      ends_at: "2030-05-01T23:00:00Z",
      components: ["db"]
    }
  ]
})
