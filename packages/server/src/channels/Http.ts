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
import * as ManagedBy from "@signalman/core/ManagedBy"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Authentication from "../auth/Authentication.js"
import { requireOrg } from "../auth/Policy.js"
import { writeSource } from "../http/WriteSource.js"
import { Channels } from "./Channels.js"

export const layer = HttpApiBuilder.group(SignalmanApi, "channels", (handlers) =>
  Effect.map(Channels, (channels) =>
    handlers
      .handle("list", ({ urlParams }) =>
        Effect.gen(function* () {
          const page = yield* channels.list(yield* requireOrg, urlParams)
          return { ...page, limit: urlParams.limit, offset: urlParams.offset }
        })
      )
      .handle("get", ({ path }) =>
        Effect.gen(function* () {
          return yield* channels.get(yield* requireOrg, path.id)
        })
      )
      .handle("create", ({ payload, headers }) =>
        Effect.gen(function* () {
          const caller = yield* Caller
          const org = yield* requireOrg
          const managedBy = yield* ManagedBy.fromHeaders(headers)
          const { channel, signingSecret } = yield* channels.create(
            org,
            caller.user.id,
            payload,
            yield* writeSource,
            managedBy
          )
          yield* HttpApp.appendPreResponseHandler((_, response) =>
            Effect.succeed(HttpServerResponse.setHeader(response, "location", `/api/v1/channels/${channel.id}`))
          )
          return new CreatedChannel({
            ...channel,
            ...(signingSecret === undefined ? {} : { signing_secret: signingSecret })
          })
        })
      )
      .handle("update", ({ path, payload, headers }) =>
        Effect.gen(function* () {
          const managedBy = yield* ManagedBy.fromHeaders(headers)
          return yield* channels.update(yield* requireOrg, path.id, payload, yield* writeSource, managedBy)
        })
      )
      .handle("delete", ({ path }) =>
        Effect.gen(function* () {
          yield* channels.remove(yield* requireOrg, path.id)
        })
      )
      .handle("test", ({ path }) =>
        Effect.gen(function* () {
          return yield* channels.test(yield* requireOrg, path.id)
        })
      )
  )
).pipe(Layer.provide([Channels.Default, Authentication.layer]))
