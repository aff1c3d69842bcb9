/**
 * Reading what the service holds for a project (`Current`): one paginated read per kind filtered by
 * `managed_by=<project>` (pages of 500), and each of the project's status pages' components. Nothing another
 * project or nobody manages is read: the diff resolves a reference to such a resource by its id alone. Without a
 * project (`pull`), the org's every resource.
 *
 * @since 0.1.0
 */
import type { Signalman } from "@signalman/sdk/Signalman"
import type { SignalmanError } from "@signalman/sdk/SignalmanError"
import * as Effect from "effect/Effect"
import type * as Current from "./Current.js"
import * as ServiceClient from "./ServiceClient.js"

/**
 * The largest page the lists answer.
 *
 * @since 0.1.0
 * @category constants
 */
export const PAGE_SIZE = 500

/**
 * The project's resources (every resource of the org when `project` is undefined), read whole before anything is
 * written (a list read while writing could skip an item).
 *
 * @since 0.1.0
 * @category reading
 */
export const read = (client: Signalman, project: string | undefined): Effect.Effect<Current.Current, SignalmanError> =>
  Effect.gen(function* () {
    const query = project === undefined ? { limit: PAGE_SIZE } : { managed_by: project, limit: PAGE_SIZE }
    const [variables, channels, targets, pages, maintenance] = yield* Effect.all(
      [
        ServiceClient.all(client.variables.list(query)),
        ServiceClient.all(client.channels.list(query)),
        ServiceClient.all(client.targets.list(query)),
        ServiceClient.all(client.statusPages.list(query)),
        ServiceClient.all(client.maintenance.list({ ...query, status: "all" }))
      ],
      { concurrency: "unbounded" }
    )
    const status_pages = yield* Effect.forEach(
      pages,
      (page) =>
        Effect.map(
          ServiceClient.call((signal) => client.statusPages.listComponents(page.id, { signal })),
          (components) => ({ page, components: components.data })
        ),
      { concurrency: 4 }
    )
    return { variables, channels, targets, status_pages, maintenance }
  })
