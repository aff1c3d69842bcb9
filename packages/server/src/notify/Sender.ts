/**
 * Sending a message through one channel: its sealed secrets opened, its full config decoded by kind, the kind's
 * requests built (`Requests`) and made one after another (`Transport`), stopping at the first failure. Used by the
 * delivery loop and by a channel's test send, so a test goes exactly the way an alert would.
 */
import * as Fs from "node:fs"
import * as Tls from "node:tls"
import { ProbeSettings } from "@signalman/checks/ProbeSettings"
import * as Resolver from "@signalman/checks/Resolver"
import * as Channel from "@signalman/core/Channel"
import * as DateTime from "effect/DateTime"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { AppConfig } from "../config/Config.js"
import { Sealer } from "../crypto/Sealer.js"
import { Mailer } from "../infra/Mailer.js"
import type { Message } from "./Message.js"
import * as Requests from "./Requests.js"
import * as Transport from "./Transport.js"

/** What a send needs of a channel row. */
export interface Target {
  readonly kind: Channel.ChannelKind
  readonly config: Readonly<Record<string, unknown>>
  readonly secrets: string | null
}

const SecretMap = Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.String }))
const decodeSettings = Schema.decodeUnknownEither(Channel.Settings)

export class Sender extends Effect.Service<Sender>()("Signalman/Sender", {
  effect: Effect.gen(function* () {
    const config = yield* AppConfig
    const sealer = yield* Sealer
    const mailer = yield* Mailer
    const caFile = config["notifier.extra_ca_file"]
    // Read once at boot: a missing file is a configuration mistake to see at start, not on the first alert.
    const extra =
      caFile === undefined
        ? undefined
        : yield* Effect.try({
            try: () => Fs.readFileSync(caFile, "utf8"),
            catch: (error) => new Error(`notifier.extra_ca_file ${caFile}: ${String(error)}`)
          }).pipe(Effect.orDie)
    const options: Transport.Options = {
      timeout: Duration.seconds(config["notifier.timeout_secs"]),
      ca: extra === undefined ? undefined : [...Tls.rootCertificates, extra],
      mailConfigured: config["mail.smtp_url"] !== undefined
    }
    const endpoints: Requests.Endpoints = {
      telegram: config["notifier.telegram_api_url"] ?? "https://api.telegram.org",
      pagerduty: config["notifier.pagerduty_events_url"] ?? "https://events.pagerduty.com/v2/enqueue",
      opsgenie: {
        us: config["notifier.opsgenie_us_url"] ?? "https://api.opsgenie.com",
        eu: config["notifier.opsgenie_eu_url"] ?? "https://api.eu.opsgenie.com"
      },
      sms: {
        url: config["notifier.sms.api_url"] ?? "https://api.twilio.com",
        accountSid: config["notifier.sms.account_sid"],
        authToken: config["notifier.sms.auth_token"],
        from: config["notifier.sms.from"]
      }
    }
    const probeSettings = {
      allowPrivateTargets: config["checker.allow_private_targets"],
      perHostMaxInflight: config["checker.per_host_max_inflight"],
      rdapBootstrapUrl: config["checker.rdap_bootstrap_url"] ?? "https://data.iana.org/rdap/dns.json",
      rdapMaxInflight: config["checker.rdap_max_inflight"],
      userAgent: Requests.USER_AGENT,
      // Only the guard's settings matter here: deliveries are not probe traffic and name no region.
      region: "local"
    }

    const settingsOf = (target: Target) =>
      Effect.gen(function* () {
        const secrets: Either.Either<Readonly<Record<string, string>>, string> = target.secrets === null
          ? Either.right({})
          : yield* sealer.open(target.secrets).pipe(
              Effect.flatMap(Schema.decodeUnknown(SecretMap)),
              Effect.mapError(() => "the channel's secrets cannot be opened with the configured key"),
              Effect.either
            )
        if (Either.isLeft(secrets)) return Either.left(secrets.left)
        const opened = secrets.right
        const decoded = decodeSettings({ kind: target.kind, config: Channel.reveal(target.config, opened) })
        return Either.mapLeft(
          decoded,
          (error) => `the channel's stored config is invalid: ${ParseResult.TreeFormatter.formatErrorSync(error)}`
        )
      })

    /** Sends `message` through the channel; the outcome of the last request made. Never fails. */
    const send = (target: Target, message: Message, deliveryId: string): Effect.Effect<Transport.Outcome> =>
      Effect.gen(function* () {
        const settings = yield* settingsOf(target)
        if (Either.isLeft(settings)) return { ok: false, status_code: null, error: settings.left }
        const requests = Requests.build(settings.right, message, deliveryId, yield* DateTime.now, endpoints)
        if (Either.isLeft(requests)) return { ok: false, status_code: null, error: requests.left }
        let outcome: Transport.Outcome = { ok: false, status_code: null, error: "nothing to send" }
        for (const request of requests.right) {
          outcome = yield* Transport.send(request, options)
          if (!outcome.ok) break
        }
        return outcome
      }).pipe(
        Effect.provideService(ProbeSettings, probeSettings),
        Effect.provide(Resolver.layer),
        Effect.provideService(Mailer, mailer)
      )

    return { send }
  }),
  dependencies: [Sealer.Default, Mailer.layer]
}) {}
