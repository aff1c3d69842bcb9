/**
 * A channel's fields in the dashboard: named by the API's paths; a stored secret never put in a visible input,
 * kept on a change by the API's placeholder in a hidden field a typed value overrides (a webhook's signing secret
 * by leaving it out, which the API reads as "keep"); and where a channel sends, said without its secrets.
 */
import { describe, expect, it } from "@effect/vitest"
import { Channel, ChannelId } from "@signalman/core/Channel"
import * as DateTime from "effect/DateTime"
import * as Schema from "effect/Schema"
import { configFields, destination } from "../src/dashboard/channels/ChannelFields.js"

const channel = (kind: Channel["kind"], config: Record<string, unknown>) =>
  new Channel({
    id: Schema.decodeSync(ChannelId)("0190a3c4-0000-7000-8000-000000000001"),
    name: "ops",
    kind,
    config,
    enabled: true,
    write_source: "ui",
    managed_by: null,
    created_at: DateTime.unsafeMake(0),
    updated_at: DateTime.unsafeMake(0)
  })

const inputs = (markup: string) => [...markup.matchAll(/<(input|textarea|select)\b[^>]*>/g)].map((m) => m[0])

describe("dashboard channel fields", () => {
  it("a new channel's secret is an empty required password field named by its API path", () => {
    const [field] = inputs(configFields("slack", { _tag: "create" }).text)
    expect(field).toContain(`name="config.webhook_url"`)
    expect(field).toContain(`type="password"`)
    expect(field).toContain("required")
    expect(field).not.toContain("value=")
  })

  it("a stored secret: the placeholder hidden first, then an empty optional input that replaces it when typed", () => {
    const markup = configFields("telegram", {
      _tag: "edit",
      channel: channel("telegram", { bot_token: "***", chat_id: "-100123" })
    }).text
    const [kept, typed, chat] = inputs(markup)
    expect(kept).toBe(`<input type="hidden" name="config.bot_token" value="***">`)
    expect(typed).toContain(`name="config.bot_token"`)
    expect(typed).not.toContain("value=")
    expect(typed).not.toContain("required")
    expect(chat).toContain(`value="-100123"`)
    expect(markup).toContain("Leave this empty to keep it")
  })

  it("a webhook keeps its signing secret by omission and its headers as the API showed them unless replaced", () => {
    const markup = configFields("webhook", {
      _tag: "edit",
      channel: channel("webhook", {
        url: "https://hooks.example.com/a",
        headers: { Authorization: "***" },
        secret: "***"
      })
    }).text
    const fields = inputs(markup)
    expect(fields.filter((f) => f.includes(`name="config.secret"`))).toEqual([
      expect.not.stringContaining(`type="hidden"`)
    ])
    expect(fields.filter((f) => f.includes(`name="config.headers"`))).toEqual([
      `<input type="hidden" data-type="json" name="config.headers" value="{&quot;Authorization&quot;:&quot;***&quot;}">`,
      expect.stringContaining("<textarea")
    ])
    expect(markup).toContain("Stored headers: Authorization")
  })

  it("an ntfy channel without a token sends none; its priority is a number", () => {
    const markup = configFields("ntfy", {
      _tag: "edit",
      channel: channel("ntfy", { server_url: "https://ntfy.sh", topic: "alerts", token: null, priority: 2 })
    }).text
    expect(markup).not.toContain(`type="hidden"`)
    expect(markup).toMatch(/<select data-type="number" id="config-priority" name="config.priority"/)
    expect(markup).toContain(`<option value="2" selected>`)
  })

  it("where a channel sends, without secrets", () => {
    expect(destination(channel("email", { addresses: ["a@example.com", "b@example.com"] }))).toBe(
      "a@example.com, b@example.com"
    )
    expect(destination(channel("discord", { webhook_url: "***" }))).toBe("Incoming webhook (URL stored as a secret)")
    expect(destination(channel("opsgenie", { api_key: "***", region: "eu", priority: "P2" }))).toBe(
      "EU region, priority P2"
    )
  })
})
