/**
 * The settings pages' pure helpers: moments in UTC and in words, counts and byte sizes, the plan's figures named
 * and put in their units.
 */
import { describe, expect, it } from "@effect/vitest"
import * as DateTime from "effect/DateTime"
import * as Format from "../src/dashboard/settings/Format.js"
import * as Usage from "../src/dashboard/settings/Usage.js"

const now = new Date("2025-03-04T05:06:59Z")

describe("dashboard settings formatting", () => {
  it("a moment is written in UTC to the minute, from a Date or a DateTime", () => {
    expect(Format.utc(new Date("2025-03-04T05:06:59Z"))).toBe("2025-03-04 05:06 UTC")
    expect(Format.utc(DateTime.unsafeMake("2024-12-31T23:59:00Z"))).toBe("2024-12-31 23:59 UTC")
  })

  it("the distance from now is the largest whole unit, ago or ahead; under a minute is just now", () => {
    expect(Format.relative(new Date(now.getTime() - 30_000), now)).toBe("just now")
    expect(Format.relative(new Date(now.getTime() - 60_000), now)).toBe("1 minute ago")
    expect(Format.relative(new Date(now.getTime() - 3 * 3_600_000 - 59_000), now)).toBe("3 hours ago")
    expect(Format.relative(new Date(now.getTime() + 29 * 86_400_000 + 5), now)).toBe("in 29 days")
    expect(Format.relative(new Date(now.getTime() + 86_400_000), now)).toBe("in 1 day")
  })

  it("time carries the exact instant for machines and both forms for people", () => {
    expect(Format.time(new Date("2025-03-04T04:06:00Z"), now).text).toBe(
      `<time datetime="2025-03-04T04:06:00.000Z">2025-03-04 04:06 UTC</time> <span class="muted">(1 hour ago)</span>`
    )
  })

  it("counts agree in number; byte sizes use the largest exact binary unit", () => {
    expect(Format.count(1, "monitor")).toBe("1 monitor")
    expect(Format.count(0, "monitor")).toBe("0 monitors")
    expect(Format.count(2, "person", "people")).toBe("2 people")
    expect(Format.bytes(1_048_576)).toBe("1 MiB")
    expect(Format.bytes(512 * 1024)).toBe("512 KiB")
    expect(Format.bytes(1000)).toBe("1000 bytes")
  })

  it("a plan's figures are named in words and put in their units; an unknown name stays as spelled", () => {
    expect(Usage.label("max_notification_channels")).toBe("Alert channels")
    expect(Usage.label("api_tokens")).toBe("Your API tokens")
    expect(Usage.label("max_future_widgets")).toBe("max_future_widgets")
    expect(Usage.policyValue("min_check_interval_secs", 180)).toBe("180 seconds")
    expect(Usage.policyValue("retention_days", 1)).toBe("1 day")
    expect(Usage.policyValue("max_logo_size_bytes", 1_048_576)).toBe("1 MiB")
    expect(Usage.policyValue("max_flow_checks", 0)).toBe("Not included")
    expect(Usage.policyValue("max_regions", 3)).toBe("3")
  })

  it("a quota's bar is drawn in proportion, capped at full, and hidden from assistive technology", () => {
    expect(Usage.bar(5, 20, false).text).toContain(`<rect class="usage-used" width="24"`)
    expect(Usage.bar(25, 20, true).text).toContain(`<rect class="usage-used usage-full" width="96"`)
    expect(Usage.bar(0, 0, true).text).toContain(`width="0"`)
    expect(Usage.bar(1, 2, false).text).toContain(`aria-hidden="true"`)
  })
})
