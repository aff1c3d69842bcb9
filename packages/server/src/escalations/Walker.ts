/**
 * The escalation walker: sends each due page of every walk, exactly once however many workers run it.
 *
 * A pass claims the walk due first (`FOR UPDATE SKIP LOCKED`, so workers share due walks instead of queueing on
 * them), and in that one transaction finds the page's recipients, writes its notice and deliveries to the outbox
 * (`Notices.page`, deduplicated by `incident/{number}/escalation/{page}` like every notice of the monitor), records
 * the page and a timeline note, and moves the walk to its next page (or stops it, every page sent). The claim
 * lock orders the page against an acknowledgement or a resolve, which stop the walk under the same row: either the
 * page went out first (it was due) or nothing further is sent.
 *
 * Recipients are read at the moment of the page: a `schedule` target pages whoever `onCallAt` names then (nobody on
 * call is recorded and the walk moves on); a `user` target is mailed at the address the member has (channels belong
 * to the org, not to a person, so mail is a user's only route); a `channel` target gets a delivery like any alert.
 */
import type { PageRecipient } from "@signalman/core/IncidentEscalation"
import type * as Notification from "@signalman/core/Notification"
import type { StepTarget } from "@signalman/core/oncall/EscalationPolicy"
import * as EscalationWalk from "@signalman/core/oncall/EscalationWalk"
import * as OnCall from "@signalman/core/oncall/OnCall"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import { uuidv7 } from "../infra/Ids.js"
import { Notices } from "../notify/Notices.js"
import type { Bound, PagedUser } from "../notify/Repo.js"
import { Escalations, positionOf } from "./Escalations.js"
import { type DueWalk, EscalationRepo } from "./Repo.js"

/** `now` overrides the clock (tests); `limit` bounds one pass. */
export interface Options {
  readonly now?: DateTime.Utc | undefined
  readonly limit?: number | undefined
}

type Target = StepTarget

/** What a page found for its targets: who gets a delivery, what each target came to, and the note's words. */
interface Found {
  readonly channels: Array<typeof Bound.Type>
  readonly users: Array<typeof PagedUser.Type>
  readonly recipients: Array<PageRecipient>
  readonly words: Array<string>
}

export class EscalationWalker extends Effect.Service<EscalationWalker>()("Signalman/EscalationWalker", {
  effect: Effect.gen(function* () {
    const repo = yield* EscalationRepo
    const notices = yield* Notices
    const escalations = yield* Escalations

    const recipient = (
      target: Target,
      outcome: PageRecipient["outcome"],
      who: { readonly user_id?: string; readonly channel_id?: string } = {}
    ): PageRecipient => ({
      target: { type: target.type, id: target.id },
      outcome,
      user_id: who.user_id ?? null,
      channel_id: who.channel_id ?? null
    })

    /** Pages one person: a delivery by mail, once per page however many targets name them. */
    const mail = (found: Found, member: typeof PagedUser.Type) => {
      if (!found.users.some((u) => u.id === member.id)) found.users.push(member)
    }

    const find = (walk: DueWalk, target: Target, now: DateTime.Utc, found: Found) =>
      Effect.gen(function* () {
        switch (target.type) {
          case "user": {
            const member = yield* repo.member(walk.org_id, target.id)
            if (member === undefined) {
              found.recipients.push(recipient(target, "not_found"))
              found.words.push(`user ${target.id} is no longer a member`)
              return
            }
            mail(found, member)
            found.recipients.push(recipient(target, "paged", { user_id: member.id }))
            found.words.push(member.email)
            return
          }
          case "schedule": {
            const schedule = yield* repo.schedule(walk.org_id, target.id)
            if (schedule === undefined) {
              found.recipients.push(recipient(target, "not_found"))
              found.words.push(`schedule ${target.id} was deleted`)
              return
            }
            const { rules } = OnCall.overMembers(schedule, yield* repo.memberIds(walk.org_id))
            const onCall = OnCall.onCallAt(rules, DateTime.toDate(now))
            if (onCall.user_id === null) {
              found.recipients.push(recipient(target, "nobody_on_call"))
              found.words.push(`nobody on call for ${schedule.name}`)
              return
            }
            const member = yield* repo.member(walk.org_id, onCall.user_id)
            if (member === undefined) {
              found.recipients.push(recipient(target, "not_found", { user_id: onCall.user_id }))
              found.words.push(`${schedule.name} has user ${onCall.user_id} on call, no longer a member`)
              return
            }
            mail(found, member)
            found.recipients.push(recipient(target, "paged", { user_id: member.id }))
            found.words.push(`${member.email} (on call for ${schedule.name})`)
            return
          }
          case "channel": {
            const channel = yield* repo.channel(walk.org_id, target.id)
            if (channel === undefined) {
              found.recipients.push(recipient(target, "not_found"))
              found.words.push(`channel ${target.id} was deleted`)
              return
            }
            if (!channel.enabled) {
              found.recipients.push(recipient(target, "disabled", { channel_id: channel.id }))
              found.words.push(`channel ${channel.name} is disabled`)
              return
            }
            if (!found.channels.some((c) => c.id === channel.id)) found.channels.push(channel)
            found.recipients.push(recipient(target, "paged", { channel_id: channel.id }))
            found.words.push(`channel ${channel.name}`)
            return
          }
        }
      })

    /** Sends the walk's due page and moves it on; the walk is locked by the caller's transaction. */
    const pageDue = (walk: DueWalk, now: DateTime.Utc) =>
      Effect.gen(function* () {
        // Stopping is written with the acknowledgement or close; a walk found otherwise is stopped here.
        if (walk.acknowledged || !walk.open) {
          const reason = walk.acknowledged && walk.open ? "acknowledged" : (walk.close_reason ?? "resolved")
          return yield* escalations.stop(walk.incident_id, reason, now)
        }
        const openedAt = DateTime.toDate(walk.opened_at)
        const page = EscalationWalk.pageAt(walk, openedAt, walk.next_page)
        if (page === null) return yield* escalations.stop(walk.incident_id, "exhausted", now)
        const position = positionOf(page)
        const found: Found = { channels: [], users: [], recipients: [], words: [] }
        for (const target of page.targets) yield* find(walk, target, now, found)

        let noticeId: string | null = null
        if (found.channels.length > 0 || found.users.length > 0) {
          const payload: Notification.NoticePayload = {
            target: { id: walk.target_id, name: walk.target_name, type: walk.target_kind },
            incident: {
              id: walk.incident_id,
              number: walk.number,
              started_at: walk.started_at,
              ended_at: null,
              impact: walk.impact,
              cause: walk.cause
            },
            reminder: 0,
            escalation: position
          }
          noticeId =
            (yield* notices.page(
              {
                org_id: walk.org_id,
                target_id: walk.target_id,
                incident_id: walk.incident_id,
                kind: "escalation",
                payload,
                dedupe_key: `incident/${walk.number}/escalation/${position.page}`
              },
              { channels: found.channels, users: found.users }
            )) ?? null
        }
        const recorded = yield* repo.recordPage({
          incident_id: walk.incident_id,
          n: position.page,
          round: position.round,
          step: position.step,
          due_at: DateTime.unsafeFromDate(page.due_at),
          paged_at: now,
          notice_id: noticeId,
          recipients: found.recipients
        })
        if (recorded) {
          const round = walk.repeat > 0 ? ` (round ${position.round})` : ""
          const where = `step ${position.step}${round}`
          yield* repo.note(uuidv7(), walk.incident_id, `Escalation ${where}: ${found.words.join("; ")}`, now)
        }
        const next = EscalationWalk.pageAt(walk, openedAt, walk.next_page + 1)
        if (next === null) return yield* escalations.stop(walk.incident_id, "exhausted", now)
        yield* repo.advance(walk.incident_id, walk.next_page + 1, DateTime.unsafeFromDate(next.due_at))
      })

    /**
     * One pass: claims the due walks one transaction each and sends each one page (a walk with several pages
     * overdue sends the next on the next pass). Answers how many pages it sent or walks it stopped.
     */
    const walkDue = (options: Options = {}) =>
      Effect.gen(function* () {
        const now = options.now ?? (yield* DateTime.now)
        const limit = options.limit ?? 500
        const seen: Array<string> = []
        while (seen.length < limit) {
          const claimed = yield* repo.transaction(
            Effect.gen(function* () {
              const walk = yield* repo.lockDue(now, seen)
              if (walk === undefined) return undefined
              yield* pageDue(walk, now)
              return walk.incident_id
            })
          )
          if (claimed === undefined) break
          seen.push(claimed)
        }
        return seen.length
      })

    return { walkDue }
  }),
  dependencies: [EscalationRepo.Default, Notices.Default, Escalations.Default]
}) {}
