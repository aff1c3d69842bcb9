/**
 * The org's members by name, for pages that name people (a schedule's participants, a policy's targets, an
 * escalation's recipients) or offer them: read through `Orgs.members`, the service behind the org page. Someone
 * named who is no longer a member reads as "a former member".
 */
import type { MemberRow } from "../../orgs/Repo.js"

export interface People {
  readonly all: ReadonlyArray<MemberRow>
  readonly nameOf: (userId: string) => string
  readonly has: (userId: string) => boolean
}

const label = (m: MemberRow): string => (m.name === null || m.name.trim() === "" ? m.email : `${m.name} (${m.email})`)

export const make = (members: ReadonlyArray<MemberRow>): People => {
  const byId = new Map(members.map((m) => [m.user_id.toLowerCase(), m]))
  return {
    all: members,
    nameOf: (userId) => {
      const m = byId.get(userId.toLowerCase())
      return m === undefined ? "a former member" : label(m)
    },
    has: (userId) => byId.has(userId.toLowerCase())
  }
}
