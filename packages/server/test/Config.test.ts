import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Config from "../src/config/Config.js"
import { envName, parseFile, resolve } from "../src/config/Load.js"
import { settings } from "../src/config/Settings.js"

const ok = (env: Record<string, string>, file?: Map<string, unknown>) => {
  const result = resolve(file === undefined ? { env } : { env, file: { path: "signalman.yaml", settings: file } })
  if (Either.isLeft(result)) throw result.left
  return result.right
}

const refusal = (env: Record<string, string>, file?: Map<string, unknown>) => {
  const result = resolve(file === undefined ? { env } : { env, file: { path: "signalman.yaml", settings: file } })
  if (Either.isRight(result)) throw new Error("expected a refusal")
  return result.left.message
}

describe("configuration", () => {
  it("defaults follow decisions.md", () => {
    const config = ok({})
    expect(config["server.host"]).toBe("0.0.0.0")
    expect(config["server.port"]).toBe(8080)
    expect(config.data_dir).toBe("./data")
    expect(config["database.url"]).toBeUndefined()
    expect(config["auth.public_base_url"]).toBeUndefined()
    expect(config["auth.enabled_methods"]).toEqual(["magic_link"])
    expect(config["operator.admin_token"]).toBeUndefined()
    expect(config["mail.smtp_url"]).toBeUndefined()
    expect(config["checker.allow_private_targets"]).toBe(false)
    expect(config["checker.per_host_max_inflight"]).toBe(2)
    expect(config["auth.magic_link.expiry_minutes"]).toBe(15)
    expect(config["auth.magic_link.rate_limit_seconds"]).toBe(60)
    expect(config.plan_cache_ttl_secs).toBe(300)
    expect(config.usage_cache_ttl_secs).toBe(10)
    expect(config.role).toBe("all")
  })

  it("the environment form is the dotted path upper-cased with __ between parts", () => {
    expect(envName("auth.magic_link.expiry_minutes")).toBe("AUTH__MAGIC_LINK__EXPIRY_MINUTES")
    expect(ok({ AUTH__MAGIC_LINK__EXPIRY_MINUTES: "30" })["auth.magic_link.expiry_minutes"]).toBe(30)
    expect(ok({ CHECKER__ALLOW_PRIVATE_TARGETS: "true" })["checker.allow_private_targets"]).toBe(true)
    expect(ok({ AUTH__ENABLED_METHODS: "magic_link, passkey" })["auth.enabled_methods"]).toEqual([
      "magic_link",
      "passkey"
    ])
  })

  it("PORT, HOST, DATABASE_URL and DATA_DIR are aliases; the dotted form wins over its alias", () => {
    const config = ok({ PORT: "9000", HOST: "127.0.0.1", DATABASE_URL: "postgres://u@db/x", DATA_DIR: "/var/sm" })
    expect(config["server.port"]).toBe(9000)
    expect(config["server.host"]).toBe("127.0.0.1")
    expect(config["database.url"]).toBe("postgres://u@db/x")
    expect(config.data_dir).toBe("/var/sm")

    expect(ok({ PORT: "9000", SERVER__PORT: "9001" })["server.port"]).toBe(9001)
  })

  it("the file sits between the defaults and the environment, nested or dotted", () => {
    const file = parseFile("server:\n  port: 7000\nauth.open_signup: false\nlog:\n  level: debug\n", "c.yaml")
    if (Either.isLeft(file)) throw file.left
    expect(ok({}, file.right)["server.port"]).toBe(7000)
    expect(ok({}, file.right)["auth.open_signup"]).toBe(false)
    expect(ok({}, file.right)["log.level"]).toBe("debug")
    expect(ok({ PORT: "7001" }, file.right)["server.port"]).toBe(7001)
    const json = parseFile('{"checker": {"per_host_max_inflight": 4}}', "c.json")
    if (Either.isLeft(json)) throw json.left
    expect(ok({}, json.right)["checker.per_host_max_inflight"]).toBe(4)
  })

  it("an unknown setting in the file is refused by name", () => {
    const file = parseFile("server:\n  prot: 7000\n", "c.yaml")
    expect(Either.isLeft(file) && file.left.message).toBe("config file c.yaml: unknown setting server.prot")
  })

  it("a file that is not YAML or JSON is refused", () => {
    expect(Either.isLeft(parseFile("{ not json", "c.json"))).toBe(true)
    expect(Either.isLeft(parseFile("- a\n- b\n", "c.yaml"))).toBe(true)
  })

  it("a bad value is one line naming the setting and where it came from", () => {
    expect(refusal({ PORT: "http" })).toBe(
      'invalid setting server.port (env PORT): must be a whole number from 0 to 65535, got "http"'
    )
    expect(refusal({ CHECKER__ALLOW_PRIVATE_TARGETS: "maybe" })).toBe(
      'invalid setting checker.allow_private_targets (env CHECKER__ALLOW_PRIVATE_TARGETS): must be true or false, got "maybe"'
    )
    expect(refusal({ DATABASE_URL: "mysql://x" })).toBe(
      "invalid setting database.url (env DATABASE_URL): must be a URL with scheme postgres or postgresql"
    )
    expect(refusal({ AUTH__ENABLED_METHODS: "magic_link,carrier_pigeon" })).toContain(
      "invalid setting auth.enabled_methods"
    )
    expect(refusal({}, new Map([["log.level", "loud"]]))).toBe(
      'invalid setting log.level (file signalman.yaml): must be one of trace, debug, info, warn, error, got "loud"'
    )
    expect(refusal({ AUTH__GITLAB__BASE_URL: "http://gitlab.internal" })).toContain("scheme https")
  })

  it("quotas, rates and intervals below 1 are refused at load (Enforcement rules 3)", () => {
    for (const key of [
      "plan_cache_ttl_secs",
      "usage_cache_ttl_secs",
      "checker.per_host_max_inflight",
      "checker.rdap_max_inflight",
      "auth.magic_link.expiry_minutes",
      "server.shutdown_grace_secs"
    ] as const) {
      expect(refusal({ [envName(key)]: "0" })).toBe(
        `invalid setting ${key} (env ${envName(key)}): must be at least 1, got 0`
      )
      expect(refusal({ [envName(key)]: "-5" })).toContain("must be at least 1")
    }
    // The magic-link throttle is the one documented exception: 0 turns it off.
    expect(ok({ AUTH__MAGIC_LINK__RATE_LIMIT_SECONDS: "0" })["auth.magic_link.rate_limit_seconds"]).toBe(0)
  })

  it("every setting has a description and a parseable default", () => {
    for (const [key, setting] of Object.entries(settings)) {
      expect(setting.description.length, key).toBeGreaterThan(0)
    }
  })

  it.effect("load reads --config, then CONFIG_FILE, and applies command-line overrides last", () =>
    Effect.gen(function* () {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sm-config-"))
      const file = path.join(dir, "signalman.yaml")
      fs.writeFileSync(file, "server:\n  port: 7100\nrole: api\n")
      const fromFlag = yield* Config.load({ env: {}, file })
      expect(fromFlag["server.port"]).toBe(7100)
      expect(fromFlag.role).toBe("api")
      const fromEnv = yield* Config.load({ env: { CONFIG_FILE: file } })
      expect(fromEnv["server.port"]).toBe(7100)
      const overridden = yield* Config.load({ env: {}, file, overrides: { role: "worker" } })
      expect(overridden.role).toBe("worker")
      const missing = yield* Effect.flip(Config.load({ env: {}, file: path.join(dir, "absent.yaml") }))
      expect(missing.message).toContain("cannot be read")
    })
  )
})

describe("server.trusted_proxies", () => {
  it("is empty by default and takes addresses and CIDR ranges from the environment or the file", () => {
    expect(ok({})["server.trusted_proxies"]).toEqual([])
    expect(ok({ SERVER__TRUSTED_PROXIES: "10.0.0.0/8, ::1" })["server.trusted_proxies"]).toEqual([
      { address: "10.0.0.0", prefix: 8, family: 4 },
      { address: "::1", prefix: 128, family: 6 }
    ])
    expect(ok({}, new Map([["server.trusted_proxies", ["fd00::/8"]]]))["server.trusted_proxies"]).toEqual([
      { address: "fd00::", prefix: 8, family: 6 }
    ])
  })

  it("refuses a host name or a bad prefix, naming the setting and the entry", () => {
    expect(refusal({ SERVER__TRUSTED_PROXIES: "10.0.0.0/8,lb.internal" })).toContain(
      'server.trusted_proxies (env SERVER__TRUSTED_PROXIES): "lb.internal" is not an IP address or CIDR range'
    )
    expect(refusal({ SERVER__TRUSTED_PROXIES: "10.0.0.0/40" })).toContain("at most 32")
    expect(refusal({}, new Map<string, unknown>([["server.trusted_proxies", [7]]]))).toContain("server.trusted_proxies")
  })
})

describe("checker.default_regions and checker.browser_path", () => {
  it("default regions are local; a list of region ids from the environment or the file, each once", () => {
    expect(ok({})["checker.default_regions"]).toEqual(["local"])
    expect(ok({ CHECKER__DEFAULT_REGIONS: "eu-west, us-east,eu-west" })["checker.default_regions"]).toEqual([
      "eu-west",
      "us-east"
    ])
    expect(ok({}, new Map([["checker.default_regions", ["ap"]]]))["checker.default_regions"]).toEqual(["ap"])
  })

  it("a region id of the wrong form, or no region at all, is refused naming the setting and the entry", () => {
    expect(refusal({ CHECKER__DEFAULT_REGIONS: "local,EU West" })).toContain(
      'checker.default_regions (env CHECKER__DEFAULT_REGIONS): "EU West" is not a region id'
    )
    expect(refusal({}, new Map<string, unknown>([["checker.default_regions", []]]))).toContain("must not be empty")
    expect(refusal({}, new Map<string, unknown>([["checker.default_regions", [7]]]))).toContain("7 is not a region id")
  })

  it("the browser path is unset by default; CHROMIUM_PATH is its alias and the dotted form wins", () => {
    expect(ok({})["checker.browser_path"]).toBeUndefined()
    expect(ok({ CHROMIUM_PATH: "/opt/chromium" })["checker.browser_path"]).toBe("/opt/chromium")
    expect(ok({ CHROMIUM_PATH: "/opt/chromium", CHECKER__BROWSER_PATH: "none" })["checker.browser_path"]).toBe("none")
  })
})

describe("OAuth provider settings", () => {
  it("provider URLs are https only, refused at boot otherwise; the defaults are the providers' own", () => {
    const values = ok({})
    expect(values["auth.github.base_url"]).toBe("https://github.com")
    expect(values["auth.github.api_url"]).toBe("https://api.github.com")
    expect(values["auth.google.issuer"]).toBe("https://accounts.google.com")
    expect(values["auth.microsoft.authority"]).toBe("https://login.microsoftonline.com")
    expect(values["auth.microsoft.tenant"]).toBe("common")
    for (const key of [
      "AUTH__GITHUB__BASE_URL",
      "AUTH__GITHUB__API_URL",
      "AUTH__GOOGLE__ISSUER",
      "AUTH__MICROSOFT__AUTHORITY",
      "AUTH__GITLAB__BASE_URL"
    ]) {
      expect(refusal({ [key]: "http://provider.example" }), key).toContain("scheme https")
    }
  })
})

describe("docs/configuration.md", () => {
  it("lists every setting", () => {
    const doc = fs.readFileSync(path.resolve(__dirname, "../../../docs/configuration.md"), "utf8")
    // Column padding is the formatter's business; only the cells matter.
    const rows = doc.split("\n").map((line) => line.replace(/\s*\|\s*/g, "|"))
    for (const key of Object.keys(settings)) {
      expect(
        rows.some((row) => row.startsWith(`|\`${key}\`|\`${envName(key)}\``)),
        key
      ).toBe(true)
    }
  })
})
