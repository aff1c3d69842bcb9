/**
 * Page events into the notifier's outbox: when an incident or a maintenance window moves, one notice per published
 * status page showing any monitor it touches. The insert joins the caller's transaction, so the notice exists exactly
 * when the change does, and its key (`incident/<id>/update/<update id>`, `maintenance/<id>/started`, ...) is unique
 * per page, so an event written twice is announced once. The notifier fans each notice out to the page's confirmed
 * subscribers at that moment.
 *
 * Only public words go in: an incident's public title and description (else its impact), a window's title,
 * description and times, and the page's names for its components. Never a monitor's check.
 */
import type * as PageSubscription from "@signalman/core/PageSubscription"
import * as Effect from "effect/Effect"
import { uuidv7 } from "../infra/Ids.js"
import { SubscribersRepo } from "./Repo.js"

const minute = (date: Date) => date.toISOString().slice(0, 16).replace("T", " ")

export class PageEvents extends Effect.Service<PageEvents>()("Signalman/PageEvents", {
  effect: Effect.gen(function* () {
    const repo = yield* SubscribersRepo

    /** Published pages of the org showing any of `targetIds`, each with its names for the ones it shows. */
    const pagesShowing = (orgId: string, targetIds: ReadonlyArray<string>) =>
      targetIds.length === 0 ? Effect.succeed([]) : repo.pagesShowing(orgId, targetIds)

    const enqueue = (
      orgId: string,
      targetIds: ReadonlyArray<string>,
      key: string,
      event: PageSubscription.Event
    ): Effect.Effect<void> =>
      Effect.gen(function* () {
        const pages = yield* pagesShowing(orgId, targetIds)
        for (const page of pages) {
          yield* repo.insertNotice({
            id: uuidv7(),
            org_id: orgId,
            page_id: page.id,
            payload: {
              event,
              page: { name: page.name, slug: page.slug, custom_domain: page.custom_domain },
              components: page.components
            },
            dedupe_key: key
          })
        }
      })

    /**
     * An incident opened, got an update (`update` names it) or resolved. Its monitor (a monitor-opened incident) or
     * its components (a declared one) decide the pages.
     */
    const incident = (
      incidentId: string,
      kind: "opened" | "update" | "resolved",
      update?: { readonly id: string; readonly phase: string; readonly message: string }
    ): Effect.Effect<void> =>
      Effect.gen(function* () {
        const row = yield* repo.incident(incidentId)
        if (row === undefined) return
        const key =
          update === undefined ? `incident/${incidentId}/${kind}` : `incident/${incidentId}/update/${update.id}`
        yield* enqueue(row.org_id, row.targets, key, {
          _tag: "Incident",
          kind,
          publicTitle: row.public_title,
          publicDescription: row.public_description,
          impact: row.impact,
          ...(update === undefined ? {} : { phase: update.phase, message: update.message })
        })
      })

    /** A maintenance window was scheduled, started, got an update (`update` names it) or completed. */
    const maintenance = (
      windowId: string,
      kind: "scheduled" | "started" | "update" | "completed",
      update?: { readonly id: string; readonly message: string }
    ): Effect.Effect<void> =>
      Effect.gen(function* () {
        const row = yield* repo.window(windowId)
        if (row === undefined) return
        const key =
          update === undefined ? `maintenance/${windowId}/${kind}` : `maintenance/${windowId}/update/${update.id}`
        yield* enqueue(row.org_id, row.targets, key, {
          _tag: "Maintenance",
          kind,
          title: row.title,
          description: row.description,
          startsAt: minute(row.starts_at),
          endsAt: minute(row.ends_at),
          ...(update === undefined ? {} : { message: update.message })
        })
      })

    /**
     * Windows that started or ended in the last hour and are not cancelled: their `started` and `completed` events
     * (a window's state follows from the clock, so a sweep notices the moment). The keys make a repeat a no-op.
     */
    const sweepWindows = Effect.gen(function* () {
      const due = yield* repo.dueWindows
      for (const window of due) yield* repo.transaction(maintenance(window.id, window.kind))
      return due.length
    })

    return { incident, maintenance, sweepWindows }
  }),
  dependencies: [SubscribersRepo.Default]
}) {}
