/**
 * The flow probe against a real headless Chromium (one per file, through the Browser service) and pages served
 * here on loopback. The site is `shop.test` (127.0.0.1), which the tests' address policy admits as if it were
 * public; `vault.test` and 127.0.0.2 are the internal side, which the real guard refuses. Names resolve through a
 * table resolver that only the probe's proxy asks: the browser itself resolves nothing.
 */
import type * as NodeHttp from "node:http"
import { assert, describe, layer } from "@effect/vitest"
import type { ProbeOutcome } from "@signalman/core/CheckResult"
import { FlowCheck } from "@signalman/core/CheckSpec"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Schema from "effect/Schema"
import * as Browser from "../src/Browser.js"
import * as Flow from "../src/Flow.js"
import type { Settings } from "../src/ProbeSettings.js"
import { selfSigned } from "./support/Certificates.js"
import { type HttpServer, httpServer, httpsServer } from "./support/Loopback.js"
import { admitting, region, settings, tableResolver, userAgent } from "./support/ProbeEnv.js"

// The browser the tests use: CHROMIUM_PATH when set, as the test suites' explicit setting.
const browserOptions: Browser.Options = { executablePath: process.env["CHROMIUM_PATH"], setting: "CHROMIUM_PATH" }

const html = (response: NodeHttp.ServerResponse, body: string, status = 200): void => {
  response.writeHead(status, { "content-type": "text/html; charset=utf-8" })
  response.end(`<!doctype html><html><head><title>t</title></head><body>${body}</body></html>`)
}

const query = (url: string): URLSearchParams => new URL(url, "http://x").searchParams

interface Site {
  /** `shop.test` on 127.0.0.1: the "public" site. */
  readonly shop: HttpServer
  /** `api.test` on 127.0.0.1: another origin, which allows simple cross-origin reads and answers no preflight. */
  readonly api: HttpServer
  /** 127.0.0.2: internal; it must never see a request while private targets are not allowed. */
  readonly vault: HttpServer
  /** `tls.test` on 127.0.0.1 with a self-signed certificate. */
  readonly tls: HttpServer
  /** Most /hold requests the shop served at once. */
  readonly holdPeak: () => number
  readonly shopUrl: (path: string) => string
  readonly vaultUrl: (path: string) => string
  readonly tlsUrl: (path: string) => string
}

class SiteTag extends Context.Tag("test/Site")<SiteTag, Site>() {}

const siteLayer = Layer.scoped(
  SiteTag,
  Effect.gen(function* () {
    const vault = yield* httpServer((_request, response) => html(response, "<p>vault contents</p>"), {
      host: "127.0.0.2"
    })
    const vaultUrl = (path: string) => `http://127.0.0.2:${vault.port}${path}`
    const api = yield* httpServer((request, response) => {
      if (request.method === "OPTIONS") {
        response.writeHead(405)
        response.end()
        return
      }
      response.writeHead(200, { "access-control-allow-origin": "*", "content-type": "text/plain" })
      response.end("figures from the api")
    })
    let holding = 0
    let peak = 0
    let shopPort = 0
    const shopUrl = (path: string) => `http://shop.test:${shopPort}${path}`
    const shop = yield* httpServer((request, response) => {
      const path = request.url.split("?")[0]
      const params = query(request.url)
      switch (path) {
        case "/login":
          return html(
            response,
            `<form method="post" action="/session">
               <input id="user" name="user"><input id="password" name="password" type="password">
               <button id="submit" type="submit">Sign in</button>
             </form>`
          )
        case "/session": {
          const user = new URLSearchParams(request.body).get("user") ?? ""
          response.writeHead(303, { location: `/welcome?name=${encodeURIComponent(user)}` })
          return response.end()
        }
        case "/welcome":
          return html(response, `<h1 id="banner">Welcome, ${params.get("name") ?? "nobody"}</h1><p>Orders: 3</p>`)
        case "/search":
          return html(
            response,
            `<form method="get" action="/results"><input id="q" name="q"><button id="go">Go</button></form>
             <input id="age" type="number">`
          )
        case "/results":
          return html(response, `<p id="found">No results</p>`)
        case "/late":
          // #late appears after `ms` milliseconds.
          return html(
            response,
            `<p>waiting</p><script>setTimeout(() => {
               const p = document.createElement("p"); p.id = "late"; p.textContent = "arrived"; document.body.append(p)
             }, ${Number(params.get("ms") ?? "0")})</script>`
          )
        case "/hidden":
          return html(response, `<p id="ghost" style="display:none">boo</p>`)
        case "/hold":
          holding++
          peak = Math.max(peak, holding)
          setTimeout(
            () => {
              holding--
              html(response, "<p>held</p>")
            },
            Number(params.get("ms") ?? "300")
          )
          return
        case "/cross-origin":
          return html(
            response,
            `<p id="out">loading</p><script>
               fetch("http://api.test:${api.port}/figures").then((r) => r.text()).then(
                 (text) => { document.getElementById("out").textContent = text },
                 (error) => { document.getElementById("out").textContent = "failed: " + error })
             </script>`
          )
        case "/assets":
          return html(response, `<img src="/pixel.png"><script src="/app.js"></script><p>assets</p>`)
        case "/pixel.png":
          response.writeHead(200, { "content-type": "image/png" })
          return response.end()
        case "/app.js":
          response.writeHead(200, { "content-type": "text/javascript" })
          return response.end("document.title = 'scripted'")
        case "/to-vault":
          response.writeHead(302, { location: vaultUrl("/secret") })
          return response.end()
        case "/to-vault-name":
          response.writeHead(302, { location: `http://vault.test:${vault.port}/secret` })
          return response.end()
        case "/vault-img":
          return html(response, `<p>hello</p><img src="${vaultUrl("/pixel.png")}">`)
        case "/vault-script":
          return html(response, `<p>hello</p><script src="${vaultUrl("/app.js")}"></script>`)
        case "/broken":
          return html(response, "<p>down for maintenance</p>", 503)
        case "/page":
          return html(response, `<p id="text">${params.get("text") ?? "plain"}</p>`)
        default:
          return html(response, "<p>not here</p>", 404)
      }
    })
    shopPort = shop.port
    const cert = selfSigned("tls.test")
    const tls = yield* httpsServer((_request, response) => html(response, "<p>secure page</p>"), cert)
    return {
      shop,
      api,
      vault,
      tls,
      holdPeak: () => peak,
      shopUrl,
      vaultUrl,
      tlsUrl: (path: string) => `https://tls.test:${tls.port}${path}`
    } satisfies Site
  })
)

// Asked by the proxy only: the browser resolves nothing itself.
const names = () =>
  tableResolver({
    "shop.test": ["127.0.0.1"],
    "api.test": ["127.0.0.1"],
    "tls.test": ["127.0.0.1"],
    "vault.test": ["127.0.0.2"]
  })

const decode = Schema.decodeUnknownSync(FlowCheck)
const flow = (start_url: string, steps: ReadonlyArray<unknown>, fields: Record<string, unknown> = {}): FlowCheck =>
  decode({ type: "flow", start_url, steps, timeout: 10, step_timeout: 2, ...fields })

const flowsLayer = Flow.layer({ maxConcurrency: 4 }).pipe(Layer.provideMerge(Browser.layer(browserOptions)))

// What every run here runs under: the site's names, the guard admitting only 127.0.0.1 (the site), private
// targets not allowed unless a test says so.
const runWith = (check: FlowCheck, overrides: Partial<Settings> = {}): Effect.Effect<ProbeOutcome, never, Flow.Flows> =>
  Flow.probe(check).pipe(
    Effect.provide(
      Layer.mergeAll(names().layer, settings({ allowPrivateTargets: false, ...overrides }), admitting("127.0.0.1"))
    )
  )

interface StepDetail {
  readonly index: number
  readonly action: string
  readonly status: string
  readonly duration_ms: number
  readonly error: string | null
}

const stepsOf = (outcome: ProbeOutcome): ReadonlyArray<StepDetail> =>
  (outcome.details?.["steps"] ?? []) as ReadonlyArray<StepDetail>

const statuses = (outcome: ProbeOutcome): ReadonlyArray<string> => stepsOf(outcome).map((step) => step.status)

const isPng = (bytes: Uint8Array | undefined): boolean =>
  bytes !== undefined &&
  Buffer.from(bytes.subarray(0, 8)).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))

// The IHDR chunk right after the signature: width and height, big-endian.
const pngSize = (bytes: Uint8Array): { readonly width: number; readonly height: number } => {
  const view = Buffer.from(bytes)
  return { width: view.readUInt32BE(16), height: view.readUInt32BE(20) }
}

layer(Layer.merge(siteLayer, flowsLayer), { excludeTestServices: true })("Flow", (it) => {
  describe("steps that pass", () => {
    it.effect("a login form: fill, fill, click, then assert_text and assert_url on the page it leads to", () =>
      Effect.gen(function* () {
        const site = yield* SiteTag
        const outcome = yield* runWith(
          flow(site.shopUrl("/login"), [
            { action: "fill", selector: "#user", value: "Ada" },
            { action: "fill", selector: "#password", value: "correct horse" },
            { action: "click", selector: "#submit" },
            { action: "assert_text", text: "Welcome, Ada" },
            { action: "assert_text", text: "Ada", selector: "#banner" },
            { action: "assert_url", contains: "/welcome" }
          ])
        )
        assert.strictEqual(outcome.status, "up", outcome.error ?? "")
        assert.isNull(outcome.error)
        assert.isNull(outcome.phases)
        assert.isUndefined(outcome.evidence)
        assert.deepStrictEqual(
          stepsOf(outcome).map(({ index, action, status, error }) => ({ index, action, status, error })),
          [
            { index: 1, action: "fill", status: "passed", error: null },
            { index: 2, action: "fill", status: "passed", error: null },
            { index: 3, action: "click", status: "passed", error: null },
            { index: 4, action: "assert_text", status: "passed", error: null },
            { index: 5, action: "assert_text", status: "passed", error: null },
            { index: 6, action: "assert_url", status: "passed", error: null }
          ]
        )
        for (const step of stepsOf(outcome)) assert.isAtLeast(step.duration_ms, 0)
        // The user name was a fill value, so the URL it reached says *** where the site put it.
        assert.strictEqual(outcome.details?.["final_url"], site.shopUrl("/welcome?name=***"))
        assert.deepStrictEqual(Object.keys(outcome.details ?? {}), ["steps", "final_url"])
        const posted = site.shop.requests.find((request) => request.url === "/session")
        assert.strictEqual(posted?.body, "user=Ada&password=correct+horse")
      })
    )

    it.effect("goto navigates and wait_for sees an element that appears within step_timeout", () =>
      Effect.gen(function* () {
        const site = yield* SiteTag
        const outcome = yield* runWith(
          flow(site.shopUrl("/login"), [
            { action: "goto", url: site.shopUrl("/late?ms=300") },
            { action: "wait_for", selector: "#late" },
            { action: "assert_text", text: "arrived", selector: "#late" }
          ])
        )
        assert.strictEqual(outcome.status, "up", outcome.error ?? "")
        const [, waited] = stepsOf(outcome)
        assert.isAtLeast(waited?.duration_ms ?? 0, 200, "the wait lasted until the element appeared")
      })
    )
  })

  describe("steps that fail", () => {
    const failing: ReadonlyArray<
      readonly [name: string, path: string, steps: ReadonlyArray<unknown>, failedAt: number, error: string]
    > = [
      [
        "fill with no such element",
        "/login",
        [
          { action: "fill", selector: "#nope", value: "x" },
          { action: "click", selector: "#submit" }
        ],
        1,
        'step 1 fill "#nope": not found within 0.3 s'
      ],
      [
        "click with no such element",
        "/login",
        [
          { action: "click", selector: "#login" },
          { action: "assert_text", text: "x" }
        ],
        1,
        'step 1 click "#login": not found within 0.3 s'
      ],
      [
        "wait_for an element that never appears",
        "/login",
        [
          { action: "wait_for", selector: "#late" },
          { action: "assert_url", contains: "/" }
        ],
        1,
        'step 1 wait_for "#late": not found within 0.3 s'
      ],
      [
        "wait_for an element that stays hidden",
        "/hidden",
        [{ action: "wait_for", selector: "#ghost" }],
        1,
        'step 1 wait_for "#ghost": found but not visible within 0.3 s'
      ],
      [
        "assert_text with the text nowhere on the page",
        "/login",
        [
          { action: "assert_url", contains: "/login" },
          { action: "assert_text", text: "Welcome" }
        ],
        2,
        'step 2 assert_text "Welcome": not on the page within 0.3 s'
      ],
      [
        "assert_text in an element that is not there",
        "/login",
        [{ action: "assert_text", text: "Sign in", selector: "#banner" }],
        1,
        'step 1 assert_text "Sign in" in "#banner": no element matches "#banner" within 0.3 s'
      ],
      [
        "assert_text in an element without the text",
        "/login",
        [{ action: "assert_text", text: "Welcome", selector: "#submit" }],
        1,
        'step 1 assert_text "Welcome" in "#submit": not in that element within 0.3 s'
      ],
      [
        "assert_url that does not match",
        "/login",
        [{ action: "assert_url", contains: "/dashboard" }],
        1,
        'step 1 assert_url "/dashboard": the URL is http://shop.test:PORT/login (waited 0.3 s)'
      ],
      [
        "goto a page answering 503",
        "/login",
        [
          { action: "goto", url: "/broken" },
          { action: "assert_text", text: "x" }
        ],
        1,
        'step 1 goto "http://shop.test:PORT/broken": answered 503'
      ]
    ]

    for (const [name, path, steps, failedAt, error] of failing) {
      it.effect(`${name}: down, naming the step; the steps after it skipped; a screenshot of the page`, () =>
        Effect.gen(function* () {
          const site = yield* SiteTag
          const port = String(site.shop.port)
          const resolved = steps.map((step) =>
            typeof step === "object" && step !== null && "url" in step
              ? { ...step, url: site.shopUrl("/broken") }
              : step
          )
          const outcome = yield* runWith(flow(site.shopUrl(path), resolved, { step_timeout: 0.3 }))
          assert.strictEqual(outcome.status, "down")
          assert.strictEqual(outcome.error, error.replace("PORT", port))
          const reports = stepsOf(outcome)
          assert.deepStrictEqual(
            reports.map((step) => step.status),
            steps.map((_, i) => (i + 1 < failedAt ? "passed" : i + 1 === failedAt ? "failed" : "skipped"))
          )
          const failed = reports[failedAt - 1]
          assert.strictEqual(`step ${failed?.index} ${failed?.action}`, `step ${failedAt} ${failed?.action}`)
          assert.strictEqual(outcome.error?.endsWith(`: ${failed?.error}`), true)
          for (const skipped of reports.slice(failedAt)) {
            assert.deepStrictEqual([skipped.duration_ms, skipped.error], [0, null])
          }
          assert.isTrue(isPng(outcome.evidence?.screenshot_png), "the evidence is a PNG")
        })
      )
    }

    it.effect("a slow element beyond step_timeout fails the step though the run has time left", () =>
      Effect.gen(function* () {
        const site = yield* SiteTag
        const outcome = yield* runWith(
          flow(site.shopUrl("/late?ms=3000"), [{ action: "wait_for", selector: "#late" }], {
            step_timeout: 0.4,
            timeout: 10
          })
        )
        assert.strictEqual(outcome.status, "down")
        assert.strictEqual(outcome.error, 'step 1 wait_for "#late": not found within 0.4 s')
        assert.isBelow(outcome.duration_ms, 3000)
      })
    )

    it.effect("the whole-run timeout ends the run at the step it reached, however long step_timeout is", () =>
      Effect.gen(function* () {
        const site = yield* SiteTag
        const outcome = yield* runWith(
          flow(
            site.shopUrl("/login"),
            [
              { action: "assert_url", contains: "/login" },
              { action: "wait_for", selector: "#never" },
              { action: "click", selector: "#submit" }
            ],
            { timeout: 1, step_timeout: 30 }
          )
        )
        assert.strictEqual(outcome.status, "down")
        assert.strictEqual(outcome.error, `step 2 wait_for "#never": the flow's timeout of 1 s ran out`)
        assert.deepStrictEqual(statuses(outcome), ["passed", "failed", "skipped"])
        assert.isAtLeast(outcome.duration_ms, 900)
        assert.isBelow(outcome.duration_ms, 4000)
        assert.isTrue(isPng(outcome.evidence?.screenshot_png))
      })
    )

    it.effect("a start_url that cannot be loaded fails before step 1: every step skipped", () =>
      Effect.gen(function* () {
        const site = yield* SiteTag
        const outcome = yield* runWith(flow(site.shopUrl("/broken"), [{ action: "assert_text", text: "x" }]))
        assert.strictEqual(outcome.status, "down")
        assert.strictEqual(outcome.error, `start_url "${site.shopUrl("/broken")}": answered 503`)
        assert.deepStrictEqual(statuses(outcome), ["skipped"])
        assert.strictEqual(outcome.details?.["final_url"], site.shopUrl("/broken"))
      })
    )

    it.effect("a host with no address: the proxy's reason, not the browser's code for it", () =>
      Effect.gen(function* () {
        const outcome = yield* runWith(flow("https://nowhere.test/", [{ action: "assert_text", text: "x" }]))
        assert.strictEqual(outcome.status, "down")
        assert.strictEqual(
          outcome.error,
          'start_url "https://nowhere.test/": nowhere.test:443: dns: no address for nowhere.test'
        )
      })
    )

    it.effect("the screenshot is a PNG of the failing page at the viewport's size", () =>
      Effect.gen(function* () {
        const site = yield* SiteTag
        const failAt = (text: string) =>
          runWith(
            flow(site.shopUrl(`/page?text=${text}`), [{ action: "assert_text", text: "absent" }], {
              step_timeout: 0.3
            })
          )
        const one = yield* failAt("first")
        const again = yield* failAt("first")
        const other = yield* failAt("second")
        const shot = one.evidence?.screenshot_png
        assert.isTrue(isPng(shot))
        if (shot === undefined) return
        assert.deepStrictEqual(pngSize(shot), { width: 1280, height: 800 })
        // The same page twice gives the same picture; a page with other text another one.
        assert.isTrue(Buffer.from(shot).equals(Buffer.from(again.evidence?.screenshot_png ?? [])))
        assert.isFalse(Buffer.from(shot).equals(Buffer.from(other.evidence?.screenshot_png ?? [])))
      })
    )
  })

  describe("fill values never leave the run", () => {
    const secret = "Tr0ub4dor&3"

    it.effect("not in the error, the steps, the final URL or any log line; masked in the screenshot", () =>
      Effect.gen(function* () {
        const site = yield* SiteTag
        const lines: Array<string> = []
        const capture = Logger.replace(
          Logger.defaultLogger,
          Logger.make(({ message, annotations }) => {
            lines.push(JSON.stringify([message, [...annotations]]))
          })
        )
        const runs = [
          // puppeteer refuses a non-number for a number field, echoing the value it was given.
          flow(site.shopUrl("/search"), [{ action: "fill", selector: "#age", value: secret }], { step_timeout: 0.3 }),
          // A form sent by GET puts the value in the URL, percent- or form-encoded.
          flow(
            site.shopUrl("/search"),
            [
              { action: "fill", selector: "#q", value: secret },
              { action: "click", selector: "#go" },
              { action: "assert_text", text: "No results" },
              { action: "assert_url", contains: "/elsewhere" }
            ],
            // Room for the click's navigation and the results page on a busy machine: the steps before the last
            // must pass for the URL to carry the value (the last fails by design, after this long).
            { step_timeout: 2 }
          ),
          // A failure elsewhere, with the value typed into a visible field.
          flow(
            site.shopUrl("/search"),
            [
              { action: "fill", selector: "#q", value: secret },
              { action: "assert_text", text: "absent" }
            ],
            { step_timeout: 0.3 }
          )
        ]
        const outcomes: Array<ProbeOutcome> = []
        for (const check of runs) {
          outcomes.push(yield* runWith(check, { allowPrivateTargets: false }).pipe(Effect.provide(capture)))
        }
        const [rejected, submitted, typed] = outcomes
        assert.strictEqual(rejected?.status, "down")
        assert.strictEqual(
          rejected?.error,
          'step 1 fill "#age": found but could not be filled (hidden, disabled, read-only, or the value does not fit the field) within 0.3 s'
        )
        assert.strictEqual(submitted?.status, "down")
        assert.strictEqual(submitted?.details?.["final_url"], `${site.shopUrl("/results")}?q=***`)
        // The URL in the error is the one the form led to, value and all: said as ***.
        assert.strictEqual(
          submitted?.error,
          `step 4 assert_url "/elsewhere": the URL is ${site.shopUrl("/results")}?q=*** (waited 2 s)`
        )
        assert.strictEqual(
          stepsOf(submitted ?? typed!)[3]?.error,
          `the URL is ${site.shopUrl("/results")}?q=*** (waited 2 s)`
        )
        assert.strictEqual(typed?.status, "down")
        const said = JSON.stringify(outcomes.map(({ evidence: _, ...rest }) => rest))
        for (const spelling of [secret, encodeURIComponent(secret), new URLSearchParams({ q: secret }).toString()]) {
          assert.notInclude(said, spelling)
          assert.notInclude(lines.join("\n"), spelling)
        }
        // The browser really sent it: it is the site's to see, not the result's.
        assert.isTrue(site.shop.requests.some((request) => request.url === `/results?q=${encodeURIComponent(secret)}`))
      })
    )

    it.effect("a filled field shows as discs in the screenshot: two values of one length look the same", () =>
      Effect.gen(function* () {
        const site = yield* SiteTag
        const typed = (value: string) =>
          runWith(
            flow(
              site.shopUrl("/search"),
              [
                { action: "fill", selector: "#q", value },
                { action: "assert_text", text: "absent" }
              ],
              { step_timeout: 0.3 }
            )
          )
        const one = yield* typed("AAAAAAAAAA")
        const two = yield* typed("WWWWWWWWWW")
        assert.isTrue(isPng(one.evidence?.screenshot_png))
        assert.isTrue(
          Buffer.from(one.evidence?.screenshot_png ?? []).equals(Buffer.from(two.evidence?.screenshot_png ?? []))
        )
      })
    )
  })

  describe("the guard", () => {
    it.effect("a start_url on an internal literal is refused up front: error, blocked, nothing requested", () =>
      Effect.gen(function* () {
        const site = yield* SiteTag
        const before = site.vault.requests.length
        const outcome = yield* runWith(flow(site.vaultUrl("/secret"), [{ action: "assert_text", text: "vault" }]))
        assert.strictEqual(outcome.status, "error")
        assert.strictEqual(
          outcome.error,
          `blocked: start_url "${site.vaultUrl("/secret")}": 127.0.0.2 is a loopback address: checks may not reach internal addresses`
        )
        assert.deepStrictEqual(statuses(outcome), ["skipped"])
        assert.strictEqual(site.vault.requests.length, before)
      })
    )

    it.effect("a goto step on an internal literal is refused up front too", () =>
      Effect.gen(function* () {
        const site = yield* SiteTag
        const outcome = yield* runWith(
          flow(site.shopUrl("/login"), [
            { action: "assert_url", contains: "/" },
            { action: "goto", url: site.vaultUrl("/") }
          ])
        )
        assert.strictEqual(outcome.status, "error")
        assert.match(
          outcome.error ?? "",
          /^blocked: step 2 goto "http:\/\/127\.0\.0\.2:\d+\/": 127\.0\.0\.2 is a loopback/
        )
      })
    )

    it.effect("a URL that is not http(s) is refused before the browser sees it", () =>
      Effect.gen(function* () {
        const site = yield* SiteTag
        const outcome = yield* runWith(
          flow(site.shopUrl("/login"), [
            { action: "goto", url: "file:///etc/passwd" },
            { action: "assert_text", text: "root" }
          ])
        )
        assert.strictEqual(outcome.status, "error")
        assert.strictEqual(outcome.error, 'step 1 goto "file:///etc/passwd": unsupported scheme file:')
      })
    )

    for (const [name, path] of [
      ["to an internal address", "/to-vault"],
      ["to a name that resolves to an internal address", "/to-vault-name"]
    ] as const) {
      it.effect(`a redirect ${name} is refused by the proxy: error, blocked, the vault sees nothing`, () =>
        Effect.gen(function* () {
          const site = yield* SiteTag
          const before = site.vault.requests.length
          const outcome = yield* runWith(
            flow(site.shopUrl("/login"), [
              { action: "goto", url: site.shopUrl(path) },
              { action: "assert_text", text: "vault contents" }
            ])
          )
          assert.strictEqual(outcome.status, "error")
          const reason =
            path === "/to-vault"
              ? "127.0.0.2 is a loopback address"
              : "vault.test resolves to 127.0.0.2, a loopback address"
          assert.strictEqual(outcome.error, `blocked: step 1 goto "${site.shopUrl(path)}": ${reason}`)
          assert.deepStrictEqual(statuses(outcome), ["failed", "skipped"])
          assert.strictEqual(stepsOf(outcome)[0]?.error, `blocked: ${reason}`)
          assert.strictEqual(site.vault.requests.length, before)
          assert.isTrue(isPng(outcome.evidence?.screenshot_png))
        })
      )
    }

    for (const [kind, path] of [
      ["an image", "/vault-img"],
      ["a script", "/vault-script"]
    ] as const) {
      it.effect(`${kind} on an internal address (loopback, which Chromium would skip the proxy for) is refused`, () =>
        Effect.gen(function* () {
          const site = yield* SiteTag
          const before = site.vault.requests.length
          const outcome = yield* runWith(flow(site.shopUrl(path), [{ action: "assert_text", text: "hello" }]))
          assert.strictEqual(outcome.status, "error")
          assert.strictEqual(
            outcome.error,
            `blocked: start_url "${site.shopUrl(path)}": 127.0.0.2 is a loopback address`
          )
          assert.strictEqual(site.vault.requests.length, before)
        })
      )
    }

    it.effect("a name that turns internal between two requests is refused on the second (no DNS rebinding)", () =>
      Effect.gen(function* () {
        const site = yield* SiteTag
        const rebinding = tableResolver({ "shop.test": { inTurn: [["127.0.0.1"], ["127.0.0.2"]] } })
        const outcome = yield* Flow.probe(
          flow(site.shopUrl("/login"), [{ action: "goto", url: site.shopUrl("/page") }])
        ).pipe(
          Effect.provide(
            Layer.mergeAll(rebinding.layer, settings({ allowPrivateTargets: false }), admitting("127.0.0.1"))
          )
        )
        assert.strictEqual(outcome.status, "error")
        assert.strictEqual(
          outcome.error,
          `blocked: step 1 goto "${site.shopUrl("/page")}": shop.test resolves to 127.0.0.2, a loopback address`
        )
        assert.isAtLeast(rebinding.lookups.length, 2, "the proxy resolved the name for each request itself")
      })
    )

    it.effect("with private targets allowed, the same redirect and subresources go through", () =>
      Effect.gen(function* () {
        const site = yield* SiteTag
        const before = site.vault.requests.length
        const outcome = yield* runWith(
          flow(site.shopUrl("/vault-img"), [
            { action: "goto", url: site.shopUrl("/to-vault") },
            { action: "assert_text", text: "vault contents" }
          ]),
          { allowPrivateTargets: true }
        )
        assert.strictEqual(outcome.status, "up", outcome.error ?? "")
        assert.deepStrictEqual(
          site.vault.requests.slice(before).map((request) => request.url),
          ["/pixel.png", "/secret"]
        )
      })
    )
  })

  describe("TLS", () => {
    it.effect("a self-signed certificate is down with verify_tls, up without; runs at once do not share it", () =>
      Effect.gen(function* () {
        const site = yield* SiteTag
        const check = (verify_tls: boolean) =>
          flow(site.tlsUrl("/"), [{ action: "assert_text", text: "secure page" }], { verify_tls })
        const [verified, trusting, verifiedAgain] = yield* Effect.all(
          [runWith(check(true)), runWith(check(false)), runWith(check(true))],
          { concurrency: "unbounded" }
        )
        assert.strictEqual(verified?.status, "down")
        assert.strictEqual(verified?.error, `start_url "${site.tlsUrl("/")}": net::ERR_CERT_AUTHORITY_INVALID`)
        assert.strictEqual(trusting?.status, "up", trusting?.error ?? "")
        assert.strictEqual(verifiedAgain?.status, "down")
        // After a trusting run, a verifying one still refuses the certificate.
        assert.strictEqual((yield* runWith(check(true))).status, "down")
      })
    )
  })

  describe("headers", () => {
    it.effect("navigations and subresources carry the probes' User-Agent and X-Signalman-Region", () =>
      Effect.gen(function* () {
        const site = yield* SiteTag
        const before = site.shop.requests.length
        const outcome = yield* runWith(
          flow(site.shopUrl("/assets"), [
            { action: "goto", url: site.shopUrl("/login") },
            { action: "assert_text", text: "Sign in" }
          ])
        )
        assert.strictEqual(outcome.status, "up", outcome.error ?? "")
        const seen = site.shop.requests.slice(before)
        assert.includeMembers(
          seen.map((request) => request.url),
          ["/assets", "/pixel.png", "/app.js", "/login"]
        )
        for (const request of seen) {
          assert.strictEqual(request.headers["user-agent"], userAgent, request.url)
          assert.strictEqual(request.headers["x-signalman-region"], region, request.url)
        }
      })
    )
    it.effect("a cross-origin fetch the site allows stays a simple request: the header brings no CORS preflight", () =>
      Effect.gen(function* () {
        const site = yield* SiteTag
        const before = site.api.requests.length
        const outcome = yield* runWith(
          flow(site.shopUrl("/cross-origin"), [
            { action: "assert_text", text: "figures from the api", selector: "#out" }
          ])
        )
        assert.strictEqual(outcome.status, "up", outcome.error ?? "")
        const seen = site.api.requests.slice(before)
        assert.deepStrictEqual(
          seen.map((request) => [request.method, request.url]),
          [["GET", "/figures"]]
        )
        assert.strictEqual(seen[0]?.headers["x-signalman-region"], region)
        assert.strictEqual(seen[0]?.headers["user-agent"], userAgent)
      })
    )
  })

  describe("one browser, shared", () => {
    it.effect("at most maxConcurrency runs at once; a run that gets no turn within its timeout is error", () =>
      Effect.gen(function* () {
        const site = yield* SiteTag
        const browser = yield* Browser.Browser
        const capped = yield* Layer.build(
          Flow.layer({ maxConcurrency: 2 }).pipe(Layer.provide(Layer.succeed(Browser.Browser, browser)))
        ).pipe(Effect.map((context) => Context.get(context, Flow.Flows)))
        const holding = flow(site.shopUrl("/hold?ms=500"), [{ action: "assert_text", text: "held" }])
        const runs = yield* Effect.all(
          Array.from({ length: 4 }, () => runWith(holding).pipe(Effect.provideService(Flow.Flows, capped))),
          { concurrency: "unbounded" }
        )
        assert.deepStrictEqual(
          runs.map((outcome) => outcome.status),
          ["up", "up", "up", "up"]
        )
        assert.strictEqual(site.holdPeak(), 2, "two at a time, never more")

        const single = yield* Layer.build(
          Flow.layer({ maxConcurrency: 1 }).pipe(Layer.provide(Layer.succeed(Browser.Browser, browser)))
        ).pipe(Effect.map((context) => Context.get(context, Flow.Flows)))
        const long = yield* Effect.fork(
          runWith(flow(site.shopUrl("/hold?ms=1000"), [{ action: "assert_text", text: "held" }])).pipe(
            Effect.provideService(Flow.Flows, single)
          )
        )
        yield* Effect.sleep("200 millis")
        const waited = yield* runWith(
          flow(site.shopUrl("/login"), [{ action: "assert_text", text: "Sign in" }], { timeout: 0.3 })
        ).pipe(Effect.provideService(Flow.Flows, single))
        assert.strictEqual(waited.status, "error")
        assert.strictEqual(waited.error, "flows: no turn within 0.3 s: this process runs at most 1 flow at once")
        assert.deepStrictEqual(statuses(waited), ["skipped"])
        assert.strictEqual((yield* Fiber.join(long)).status, "up")
      }).pipe(Effect.scoped)
    )

    it.effect("the browser crashing mid-run is error naming the step; the next run gets a new browser", () =>
      Effect.gen(function* () {
        const site = yield* SiteTag
        const browser = yield* Browser.Browser
        const running = yield* Effect.fork(
          runWith(
            flow(site.shopUrl("/login"), [{ action: "wait_for", selector: "#never" }], {
              step_timeout: 20,
              timeout: 30
            })
          )
        )
        // Once the page has loaded, the run is waiting in step 1: kill its browser.
        const loaded = site.shop.requests.length
        yield* Effect.promise(async () => {
          for (let i = 0; i < 100 && site.shop.requests.length === loaded; i++)
            await new Promise((r) => setTimeout(r, 50))
        })
        const victim = yield* Effect.scoped(Effect.map(browser.context, (context) => context.browser().process()))
        assert.isNotNull(victim)
        yield* Effect.sleep("300 millis")
        victim?.kill("SIGKILL")
        const crashed = yield* Fiber.join(running)
        assert.strictEqual(crashed.status, "error")
        assert.strictEqual(crashed.error, 'browser: the browser stopped during step 1 wait_for "#never"')
        assert.deepStrictEqual(
          stepsOf(crashed).map((step) => [step.status, step.error]),
          [["failed", "the browser stopped"]]
        )
        const next = yield* runWith(flow(site.shopUrl("/login"), [{ action: "assert_text", text: "Sign in" }]))
        assert.strictEqual(next.status, "up", next.error ?? "")
      })
    )
  })

  describe("without a browser", () => {
    it.effect("a process with no browser answers error saying so, without a crash", () =>
      Effect.gen(function* () {
        const site = yield* SiteTag
        const outcome = yield* runWith(flow(site.shopUrl("/login"), [{ action: "assert_text", text: "x" }])).pipe(
          Effect.provide(Flow.layerWithoutBrowser("checker.browser_path is none"))
        )
        assert.deepStrictEqual(outcome, {
          status: "error",
          duration_ms: 0,
          error: "flows: no browser is available in this region (checker.browser_path is none)",
          details: {
            steps: [{ index: 1, action: "assert_text", status: "skipped", duration_ms: 0, error: null }],
            final_url: null
          },
          phases: null
        })
      })
    )

    it.effect("a browser path that is no browser: error naming the setting, found when the run asks", () =>
      Effect.gen(function* () {
        const site = yield* SiteTag
        const outcome = yield* runWith(flow(site.shopUrl("/login"), [{ action: "assert_text", text: "x" }])).pipe(
          Effect.provide(
            Flow.layer().pipe(
              Layer.provide(Browser.layer({ executablePath: "/nowhere/chromium", setting: "checker.browser_path" }))
            )
          )
        )
        assert.strictEqual(outcome.status, "error")
        assert.match(
          outcome.error ?? "",
          /^flows: no browser is available in this region \(browser: checker\.browser_path is \/nowhere\/chromium, which is not an executable file/
        )
      })
    )
  })
})
