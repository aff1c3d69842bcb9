import { assert, describe, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Redacted from "effect/Redacted"
import * as Settings from "../src/Settings.js"

const TOKEN = "sm_agent_0123456789abcdef"
const required = { SIGNALMAN_URL: "https://signalman.example.com", SIGNALMAN_AGENT_TOKEN: TOKEN }

const settingsOf = (argv: ReadonlyArray<string>, env: Record<string, string | undefined>): Settings.Settings => {
  const command = Settings.read(argv, env)
  if (Either.isLeft(command)) return assert.fail(command.left.message)
  if (command.right._tag !== "run") return assert.fail(`expected run, got ${command.right._tag}`)
  return command.right.settings
}

const refusal = (argv: ReadonlyArray<string>, env: Record<string, string | undefined>): string => {
  const command = Settings.read(argv, env)
  if (Either.isRight(command)) return assert.fail(`expected a refusal, got ${JSON.stringify(command.right)}`)
  return command.left.message
}

describe("Settings", () => {
  it("the defaults of decisions.md: concurrency 200, private targets off, an automatic browser", () => {
    const settings = settingsOf([], required)
    assert.deepStrictEqual(
      { ...settings, token: Redacted.value(settings.token) },
      {
        url: "https://signalman.example.com",
        token: TOKEN,
        browser: { _tag: "auto" },
        concurrency: 200,
        flowConcurrency: 2,
        allowPrivateTargets: false,
        perHostMaxInflight: 2,
        rdapBootstrapUrl: "https://data.iana.org/rdap/dns.json",
        rdapMaxInflight: 4,
        bufferSize: 10_000,
        logLevel: "info",
        reconnectMinMs: 500,
        reconnectMaxMs: 30_000,
        drainTimeoutSecs: 330
      }
    )
  })

  it("every setting from the environment", () => {
    const settings = settingsOf([], {
      SIGNALMAN_URL: "http://127.0.0.1:8080/",
      SIGNALMAN_AGENT_TOKEN: ` ${TOKEN} `,
      AGENT__BROWSER_PATH: "/opt/chromium/chrome",
      AGENT__CONCURRENCY: "50",
      AGENT__ALLOW_PRIVATE_TARGETS: "yes",
      AGENT__PER_HOST_MAX_INFLIGHT: "3",
      AGENT__RDAP_BOOTSTRAP_URL: "http://127.0.0.1:9/dns.json",
      AGENT__RDAP_MAX_INFLIGHT: "5",
      AGENT__BUFFER_SIZE: "100",
      AGENT__LOG_LEVEL: "WARNING",
      AGENT__RECONNECT_MIN_MS: "10",
      AGENT__RECONNECT_MAX_MS: "10",
      AGENT__DRAIN_TIMEOUT_SECS: "60",
      AGENT__FLOW_CONCURRENCY: "3"
    })
    assert.deepStrictEqual(
      { ...settings, token: Redacted.value(settings.token) },
      {
        url: "http://127.0.0.1:8080",
        token: TOKEN,
        browser: { _tag: "path", path: "/opt/chromium/chrome", setting: "AGENT__BROWSER_PATH" },
        concurrency: 50,
        flowConcurrency: 3,
        allowPrivateTargets: true,
        perHostMaxInflight: 3,
        rdapBootstrapUrl: "http://127.0.0.1:9/dns.json",
        rdapMaxInflight: 5,
        bufferSize: 100,
        logLevel: "warn",
        reconnectMinMs: 10,
        reconnectMaxMs: 10,
        drainTimeoutSecs: 60
      }
    )
  })

  it("flags win over the environment, in --name value and --name=value forms", () => {
    const settings = settingsOf(
      [
        "--url",
        "https://other.example.com/signalman/",
        "--concurrency=9",
        "--allow-private-targets",
        "--log-level",
        "debug"
      ],
      { ...required, AGENT__CONCURRENCY: "50", AGENT__ALLOW_PRIVATE_TARGETS: "false", AGENT__LOG_LEVEL: "error" }
    )
    assert.strictEqual(settings.url, "https://other.example.com/signalman")
    assert.strictEqual(settings.concurrency, 9)
    assert.isTrue(settings.allowPrivateTargets)
    assert.strictEqual(settings.logLevel, "debug")
    assert.isFalse(
      settingsOf(["--allow-private-targets=false"], { ...required, AGENT__ALLOW_PRIVATE_TARGETS: "1" })
        .allowPrivateTargets
    )
    assert.strictEqual(
      Redacted.value(settingsOf(["--token", "sm_agent_fromflag"], required).token),
      "sm_agent_fromflag"
    )
  })

  it("an empty variable counts as unset", () => {
    assert.strictEqual(settingsOf([], { ...required, AGENT__CONCURRENCY: "" }).concurrency, 200)
  })

  it("the browser: none turns flows off; CHROMIUM_PATH is the default; AGENT__BROWSER_PATH wins over it", () => {
    assert.deepStrictEqual(settingsOf([], { ...required, AGENT__BROWSER_PATH: "none" }).browser, { _tag: "off" })
    assert.deepStrictEqual(settingsOf([], { ...required, AGENT__BROWSER_PATH: "NONE", CHROMIUM_PATH: "/x" }).browser, {
      _tag: "off"
    })
    assert.deepStrictEqual(settingsOf([], { ...required, CHROMIUM_PATH: "/usr/lib/chromium/chromium" }).browser, {
      _tag: "path",
      path: "/usr/lib/chromium/chromium",
      setting: "CHROMIUM_PATH"
    })
    assert.deepStrictEqual(
      settingsOf(["--browser-path", "/opt/chrome"], { ...required, CHROMIUM_PATH: "/usr/bin/chromium" }).browser,
      { _tag: "path", path: "/opt/chrome", setting: "AGENT__BROWSER_PATH" }
    )
  })

  it("--help and --version win over everything, even bad values", () => {
    assert.deepStrictEqual(Settings.read(["--concurrency", "zero", "--help"], {}), Either.right({ _tag: "help" }))
    assert.deepStrictEqual(Settings.read(["-h"], {}), Either.right({ _tag: "help" }))
    assert.deepStrictEqual(Settings.read(["--version"], {}), Either.right({ _tag: "version" }))
    const usage = Settings.usage("1.2.3")
    for (const definition of Settings.definitions) {
      assert.include(usage, definition.env)
      assert.include(usage, `--${definition.flag}`)
    }
  })

  describe("refusals: one line naming the setting", () => {
    const cases: ReadonlyArray<readonly [string, Record<string, string>, string]> = [
      ["SIGNALMAN_URL missing", { SIGNALMAN_AGENT_TOKEN: TOKEN }, "SIGNALMAN_URL (--url) is required"],
      [
        "SIGNALMAN_AGENT_TOKEN missing",
        { SIGNALMAN_URL: "https://x.example" },
        "SIGNALMAN_AGENT_TOKEN (--token) is required"
      ],
      [
        "SIGNALMAN_URL not a URL",
        { ...required, SIGNALMAN_URL: "signalman.example.com" },
        'SIGNALMAN_URL (--url) must be the service\'s http:// or https:// URL, with no query, fragment or credentials, got "signalman.example.com"'
      ],
      [
        "SIGNALMAN_URL another scheme",
        { ...required, SIGNALMAN_URL: "ftp://x.example" },
        'SIGNALMAN_URL (--url) must be the service\'s http:// or https:// URL, with no query, fragment or credentials, got "ftp://x.example"'
      ],
      [
        "SIGNALMAN_URL with a query",
        { ...required, SIGNALMAN_URL: "https://x.example/?a=1" },
        'SIGNALMAN_URL (--url) must be the service\'s http:// or https:// URL, with no query, fragment or credentials, got "https://x.example/?a=1"'
      ],
      [
        "SIGNALMAN_AGENT_TOKEN an API token",
        { ...required, SIGNALMAN_AGENT_TOKEN: "sm_live_0123456789" },
        "SIGNALMAN_AGENT_TOKEN (--token) must be an agent token (sm_agent_..., minted by POST /operator/agents)"
      ],
      [
        "SIGNALMAN_AGENT_TOKEN the bare prefix",
        { ...required, SIGNALMAN_AGENT_TOKEN: "sm_agent_" },
        "SIGNALMAN_AGENT_TOKEN (--token) must be an agent token (sm_agent_..., minted by POST /operator/agents)"
      ],
      [
        "SIGNALMAN_AGENT_TOKEN with a space inside",
        { ...required, SIGNALMAN_AGENT_TOKEN: "sm_agent_ab cd" },
        "SIGNALMAN_AGENT_TOKEN (--token) must be an agent token (sm_agent_..., minted by POST /operator/agents)"
      ],
      [
        "AGENT__CONCURRENCY not a number",
        { ...required, AGENT__CONCURRENCY: "lots" },
        'AGENT__CONCURRENCY (--concurrency) must be a whole number from 1 to 100000, got "lots"'
      ],
      [
        "AGENT__CONCURRENCY zero",
        { ...required, AGENT__CONCURRENCY: "0" },
        'AGENT__CONCURRENCY (--concurrency) must be a whole number from 1 to 100000, got "0"'
      ],
      [
        "AGENT__CONCURRENCY fractional",
        { ...required, AGENT__CONCURRENCY: "2.5" },
        'AGENT__CONCURRENCY (--concurrency) must be a whole number from 1 to 100000, got "2.5"'
      ],
      [
        "AGENT__CONCURRENCY above the protocol's bound",
        { ...required, AGENT__CONCURRENCY: "100001" },
        'AGENT__CONCURRENCY (--concurrency) must be a whole number from 1 to 100000, got "100001"'
      ],
      [
        "AGENT__FLOW_CONCURRENCY zero",
        { ...required, AGENT__FLOW_CONCURRENCY: "0" },
        'AGENT__FLOW_CONCURRENCY (--flow-concurrency) must be a whole number from 1 to 64, got "0"'
      ],
      [
        "AGENT__FLOW_CONCURRENCY above its bound",
        { ...required, AGENT__FLOW_CONCURRENCY: "65" },
        'AGENT__FLOW_CONCURRENCY (--flow-concurrency) must be a whole number from 1 to 64, got "65"'
      ],
      [
        "AGENT__ALLOW_PRIVATE_TARGETS not a boolean",
        { ...required, AGENT__ALLOW_PRIVATE_TARGETS: "maybe" },
        'AGENT__ALLOW_PRIVATE_TARGETS (--allow-private-targets) must be true or false, got "maybe"'
      ],
      [
        "AGENT__PER_HOST_MAX_INFLIGHT zero",
        { ...required, AGENT__PER_HOST_MAX_INFLIGHT: "0" },
        'AGENT__PER_HOST_MAX_INFLIGHT (--per-host-max-inflight) must be a whole number from 1 to 10000, got "0"'
      ],
      [
        "AGENT__RDAP_BOOTSTRAP_URL not a URL",
        { ...required, AGENT__RDAP_BOOTSTRAP_URL: "iana" },
        'AGENT__RDAP_BOOTSTRAP_URL (--rdap-bootstrap-url) must be an http:// or https:// URL, got "iana"'
      ],
      [
        "AGENT__RDAP_MAX_INFLIGHT negative",
        { ...required, AGENT__RDAP_MAX_INFLIGHT: "-1" },
        'AGENT__RDAP_MAX_INFLIGHT (--rdap-max-inflight) must be a whole number from 1 to 1000, got "-1"'
      ],
      [
        "AGENT__BUFFER_SIZE zero",
        { ...required, AGENT__BUFFER_SIZE: "0" },
        'AGENT__BUFFER_SIZE (--buffer-size) must be a whole number from 1 to 1000000, got "0"'
      ],
      [
        "AGENT__LOG_LEVEL unknown",
        { ...required, AGENT__LOG_LEVEL: "verbose" },
        'AGENT__LOG_LEVEL (--log-level) must be one of debug, info, warn, error, got "verbose"'
      ],
      [
        "AGENT__RECONNECT_MIN_MS zero",
        { ...required, AGENT__RECONNECT_MIN_MS: "0" },
        'AGENT__RECONNECT_MIN_MS (--reconnect-min-ms) must be a whole number from 1 to 600000, got "0"'
      ],
      [
        "AGENT__RECONNECT_MAX_MS not a number",
        { ...required, AGENT__RECONNECT_MAX_MS: "soon" },
        'AGENT__RECONNECT_MAX_MS (--reconnect-max-ms) must be a whole number from 1 to 3600000, got "soon"'
      ],
      [
        "AGENT__RECONNECT_MAX_MS below the minimum",
        { ...required, AGENT__RECONNECT_MIN_MS: "1000", AGENT__RECONNECT_MAX_MS: "999" },
        "AGENT__RECONNECT_MAX_MS (--reconnect-max-ms) must be at least AGENT__RECONNECT_MIN_MS (1000), got 999"
      ],
      [
        "AGENT__DRAIN_TIMEOUT_SECS zero",
        { ...required, AGENT__DRAIN_TIMEOUT_SECS: "0" },
        'AGENT__DRAIN_TIMEOUT_SECS (--drain-timeout-secs) must be a whole number from 1 to 86400, got "0"'
      ]
    ]
    for (const [name, env, message] of cases) {
      it(name, () => {
        assert.strictEqual(refusal([], env), message)
      })
    }

    it("a bad token is never echoed", () => {
      const message = refusal([], { ...required, SIGNALMAN_AGENT_TOKEN: "sm_live_secret-value" })
      assert.notInclude(message, "secret-value")
    })

    it("a bad flag value names the flag's setting", () => {
      assert.strictEqual(
        refusal(["--buffer-size", "big"], required),
        'AGENT__BUFFER_SIZE (--buffer-size) must be a whole number from 1 to 1000000, got "big"'
      )
    })

    it("an unknown option, a stray argument, a missing value", () => {
      assert.strictEqual(refusal(["--concurency", "5"], required), "unknown option --concurency (see --help)")
      assert.strictEqual(refusal(["run"], required), 'unexpected argument "run" (see --help)')
      assert.strictEqual(refusal(["--concurrency"], required), "option --concurrency needs a value (see --help)")
    })
  })
})
