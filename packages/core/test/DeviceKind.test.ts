import { describe, expect, it } from "@effect/vitest"
import * as DeviceKind from "@signalman/core/DeviceKind"

describe("DeviceKind.describe", () => {
  it("names the browser and the system, telling apart the browsers that borrow each other's tokens", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0", "Firefox on Linux"],
      [
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
        "Edge on Windows"
      ],
      [
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
        "Safari on macOS"
      ],
      [
        "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
        "Safari on iOS"
      ],
      [
        "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
        "Chrome on Android"
      ],
      [
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 OPR/114.0.0.0",
        "Opera on Linux"
      ],
      [
        "Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36",
        "Chrome on ChromeOS"
      ]
    ]
    for (const [agent, kind] of cases) expect(DeviceKind.describe(agent)).toBe(kind)
  })

  it("says nothing for a script, a bot or no User-Agent", () => {
    expect(DeviceKind.describe("curl/8.5.0")).toBeUndefined()
    expect(DeviceKind.describe("")).toBeUndefined()
    expect(DeviceKind.describe(undefined)).toBeUndefined()
  })
})
