/**
 * The invalidation tag of a status page (see `infra/Invalidation.ts`), and the writes that publish it.
 *
 * An owner's change to a page (access, slug, domain, branding, components, logo, deletion) publishes it, so every
 * process drops its cached lookups and the page's public snapshot at once instead of serving the old page for the
 * rest of the cache window: a page just made private must not stay readable to strangers for those seconds.
 *
 * A person's narration shows on pages too without touching them: an incident declared, narrated (its public
 * fields), updated or resolved, and a maintenance window scheduled, edited, cancelled or updated. `PageChanges`
 * publishes the tag of every page showing one of the monitors such a write concerns, after the write commits (a
 * process rebuilding the snapshot before the commit would cache the old narration for a whole window).
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Invalidation } from "../infra/Invalidation.js"
import { StatusPagesRepo } from "./Repo.js"

const PREFIX = "status_page:"

/** The tag to publish when pages of any number changed at once (an account's orgs deleted or restored). */
export const every = `${PREFIX}*`

/** The tag to publish when the page `pageId` changed. */
export const tag = (pageId: string): string => `${PREFIX}${pageId}`

/** The page a published tag names (`*`: every page), or undefined when the tag is about something else. */
export const pageOf = (published: string): string | undefined =>
  published.startsWith(PREFIX) ? published.slice(PREFIX.length) : undefined

export class PageChanges extends Effect.Service<PageChanges>()("Signalman/PageChanges", {
  effect: Effect.gen(function* () {
    const repo = yield* StatusPagesRepo
    const invalidation = yield* Invalidation

    const publish = (pages: ReadonlyArray<{ readonly id: string }>) =>
      Effect.forEach(pages, (page) => invalidation.publish(tag(page.id)), { discard: true })

    // The write has committed by now: failing its request over the pages would invite a retry that writes it twice.
    // The pages' cache window bounds how long they stay stale instead, as when the notification channel fails.
    const bestEffort = <E>(self: Effect.Effect<void, E>): Effect.Effect<void> =>
      Effect.catchAllCause(self, (cause) => Effect.logWarning("Could not drop the status pages' snapshots", cause))

    /**
     * After a committed write that changes what the org's pages show about these monitors (a maintenance window):
     * the pages showing any of them are dropped everywhere. Unpublished pages are included; they are cheap to drop
     * and may be published by the time the tag arrives.
     */
    const monitors = (orgId: string, targetIds: ReadonlyArray<string>): Effect.Effect<void> =>
      targetIds.length === 0
        ? Effect.void
        : repo.showingMonitors(orgId, targetIds).pipe(Effect.flatMap(publish), bestEffort)

    /** The same after a committed write of an incident: the pages showing its monitor or its declared components. */
    const incident = (incidentId: string): Effect.Effect<void> =>
      repo.showingIncident(incidentId).pipe(Effect.flatMap(publish), bestEffort)

    return { monitors, incident }
  }),
  dependencies: [Invalidation.Default, StatusPagesRepo.Default]
}) {
  /**
   * Publishes nothing: for tests that build a service over a bare database client, where no page is cached and no
   * invalidation channel exists.
   */
  static Test = Layer.succeed(
    PageChanges,
    PageChanges.make({ monitors: () => Effect.void, incident: () => Effect.void })
  )
}
