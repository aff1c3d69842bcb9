/**
 * `signalman import <type> <id> <key> [-c FILE]`: adopts one resource made elsewhere (the UI, the API) into the
 * file's project as `<project>/<key>`: a `PATCH {}` with `Signalman-Managed-By`, which changes nothing else. From
 * then on `plan` and `apply` treat it as the file's item under that key (add the item to the file, or the next
 * apply deletes it). Exit 0 when adopted, 1 otherwise.
 *
 * @since 0.1.0
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as ManagedBy from "@signalman/core/ManagedBy"
import type { Signalman } from "@signalman/sdk/Signalman"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Plan from "./Plan.js"
import * as Planning from "./Planning.js"
import * as ServiceClient from "./ServiceClient.js"
import * as ServiceOptions from "./ServiceOptions.js"
import * as Validate from "./Validate.js"

const lists: Record<Plan.ResourceType, string> = {
  variable: "variables",
  channel: "channels",
  monitor: "monitors",
  status_page: "status_pages",
  maintenance: "maintenance"
}

/**
 * Stamps a resource with `<project>/<key>` and nothing else.
 *
 * @since 0.1.0
 * @category adopting
 */
export const adopt = (client: Signalman, type: Plan.ResourceType, id: string, managedBy: ManagedBy.ManagedBy) => {
  const options = { headers: { [ManagedBy.HEADER_KEY]: ManagedBy.format(managedBy) } }
  return ServiceClient.call((signal): PromiseLike<unknown> => {
    switch (type) {
      case "variable":
        return client.variables.rotate(id, {}, { ...options, signal })
      case "channel":
        return client.channels.update(id, {}, { ...options, signal })
      case "monitor":
        return client.targets.update(id, {}, { ...options, signal })
      case "status_page":
        return client.statusPages.update(id, {}, { ...options, signal })
      case "maintenance":
        return client.maintenance.update(id, {}, { ...options, signal })
    }
  })
}

/**
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make(
  "import",
  {
    type: Args.choice(
      Plan.resourceTypes.map((type): [string, Plan.ResourceType] => [type, type]),
      { name: "type" }
    ).pipe(Args.withDescription("variable, channel, monitor, status_page or maintenance")),
    id: Args.text({ name: "id" }).pipe(Args.withDescription("The resource's id on the service")),
    key: Args.text({ name: "key" }).pipe(Args.withDescription("Its key in the file")),
    config: Validate.configFile,
    ...ServiceOptions.options
  },
  ({ type, id, key, config, ...given }) =>
    Effect.gen(function* () {
      if (!ManagedBy.KEY_PATTERN.test(key)) {
        return yield* Planning.fail(
          "import",
          `"${key}" is not a key: a lowercase letter or digit, then up to 62 of a-z, 0-9, - and _`
        )
      }
      const { file, desired } = yield* Planning.config(config)
      const { credentials, client } = yield* Planning.connect(given)
      yield* adopt(client, type, id, { project: desired.project, key }).pipe(
        Effect.catchAll(Planning.serviceFailed("import", credentials.url))
      )
      yield* Console.log(
        `Adopted ${type} ${id} into project "${desired.project}" as ${key}. Describe it in ${file} under ` +
          `${lists[type]} with key: ${key}, or the next apply deletes it; plan shows what differs.`
      )
    })
).pipe(Command.withDescription("Adopt a resource made elsewhere into the file's project under a key"))
