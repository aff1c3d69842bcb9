/**
 * The `channels` group: an org's notification channels (list, read, create, change, delete, test send). Every route acts on
 * the caller's org; a channel of another org answers the same 404 as one that does not exist.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { SignalmanApi } from "@signalman/core/api/Api"
import { Caller } from "@signalman/core/api/Authentication"
import { CreatedChannel } from "@signalman/core/Channel"
import * as Effect from "effect/Effect"
import { requireOrg, requireScope } from "../auth/Policy.js"
import { writeSource } from "../http/WriteSource.js"
import { Plans } from "../limits/Plans.js"
import { Deliveries } from "../notify/Deliveries.js"
import { Channels, notFound, toChannel } from "./Channels.js"

export const layer = HttpApiBuilder.group(SignalmanApi, "channels", (handlers) =>
  Effect.gen(function* () {
    const channels = yield* Channels
    const plans = yield* Plans
    const deliveries = yield* Deliveries

    const orgAndPlan = Effect.gen(function* () {
      const org = yield* requireOrg
      const plan = yield* plans.forAccount(org.accountId)
      return { org, plan }
    })

    return handlers
      .handle("list", ({ urlParams }) =>
        Effect.gen(function* () {
          yield* requireScope("channels:read")
          const org = yield* requireOrg
          const page = yield* channels.list(org, urlParams)
          return { data: page.rows.map(toChannel), total: page.total, limit: urlParams.limit, offset: urlParams.offset }
        })
      )
      .handle("get", ({ path }) =>
        Effect.gen(function* () {
          yield* requireScope("channels:read")
          const org = yield* requireOrg
          const row = yield* channels.one(org, path.id)
          return row === undefined ? yield* Effect.fail(notFound) : toChannel(row)
        })
      )
      .handle("create", ({ payload }) =>
        Effect.gen(function* () {
          yield* requireScope("channels:write")
          const caller = yield* Caller
          const { org, plan } = yield* orgAndPlan
          const created = yield* channels.create(org, caller.user.id, plan, payload, yield* writeSource)
          yield* HttpApp.appendPreResponseHandler((_, response) =>
            Effect.succeed(HttpServerResponse.setHeader(response, "location", `/api/v1/channels/${created.row.id}`))
          )
          const channel = toChannel(created.row)
          return new CreatedChannel({
            ...channel,
            ...(created.signingSecret === undefined ? {} : { signing_secret: created.signingSecret })
          })
        })
      )
      .handle("update", ({ path, payload }) =>
        Effect.gen(function* () {
          yield* requireScope("channels:write")
          const { org, plan } = yield* orgAndPlan
          const row = yield* channels.update(org, plan, path.id, payload, yield* writeSource)
          return row === undefined ? yield* Effect.fail(notFound) : toChannel(row)
        })
      )
      .handle("delete", ({ path }) =>
        Effect.gen(function* () {
          yield* requireScope("channels:delete")
          const org = yield* requireOrg
          if (!(yield* channels.remove(org, path.id))) return yield* Effect.fail(notFound)
        })
      )
      .handle("test", ({ path }) =>
        Effect.gen(function* () {
          yield* requireScope("channels:execute")
          const { org, plan } = yield* orgAndPlan
          const row = yield* channels.one(org, path.id)
          if (row === undefined) return yield* Effect.fail(notFound)
          // A test of an sms channel costs a message like an alert does: only on a plan that includes SMS.
          if (row.kind === "sms" && !plan.flags.sms_alerts_enabled)
            return yield* Effect.fail(channels.smsDisabled(plan))
          return yield* deliveries.sendTest(row)
        })
      )
  })
)
