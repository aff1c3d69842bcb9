/**
 * The words the on-call pages use: a rotation, a restriction, a step's delay, and a target (a person, whoever a
 * schedule has on call, a channel) named as the org knows it, linked where it has a page.
 */
import type { Channel } from "@signalman/core/Channel"
import type { StepTarget } from "@signalman/core/oncall/EscalationPolicy"
import type { Layer, Restriction, Schedule } from "@signalman/core/oncall/Schedule"
import { type Html, html } from "../Template.js"
import type { People } from "./People.js"

const unitWords = { hours: ["hour", "hours"], days: ["day", "days"], weeks: ["week", "weeks"] } as const

export const rotation = (layer: Layer): string => {
  const { count, unit } = layer.rotation.length
  const [one, many] = unitWords[unit]
  return `${count} ${count === 1 ? one : many} each, handing over at ${layer.rotation.handoff}`
}

const dayNames = { mon: "Mon", tue: "Tue", wed: "Wed", thu: "Thu", fri: "Fri", sat: "Sat", sun: "Sun" } as const

export const restriction = (r: Restriction): string =>
  `${r.days.map((d) => dayNames[d]).join(", ")} ${r.from} to ${r.to}${r.to <= r.from ? " (next day)" : ""}`

export const delay = (minutes: number, first: boolean): string =>
  minutes === 0
    ? first
      ? "At once"
      : "With the previous step"
    : `${minutes} min after ${first ? "opening" : "the previous step"}`

/** What the on-call pages know to name targets by. */
export interface Names {
  readonly people: People
  readonly schedules: ReadonlyArray<Pick<Schedule, "id" | "name">>
  readonly channels: ReadonlyArray<Pick<Channel, "id" | "name" | "kind">>
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase()

export const target = (t: Pick<StepTarget, "type" | "id">, names: Names): Html => {
  switch (t.type) {
    case "user":
      return html`${names.people.nameOf(t.id)}`
    case "schedule": {
      const s = names.schedules.find((candidate) => same(candidate.id, t.id))
      return s === undefined
        ? html`<span class="muted">a deleted schedule</span>`
        : html`whoever <a href="/on-call/schedules/${s.id}">${s.name}</a> has on call`
    }
    case "channel": {
      const c = names.channels.find((candidate) => same(candidate.id, t.id))
      return c === undefined
        ? html`<span class="muted">a deleted channel</span>`
        : html`channel <a href="/channels">${c.name}</a> <span class="muted">(${c.kind})</span>`
    }
  }
}

export const targets = (list: ReadonlyArray<Pick<StepTarget, "type" | "id">>, names: Names): Html =>
  html`${list.map((t, i) => html`${i > 0 ? (i === list.length - 1 ? " and " : ", ") : ""}${target(t, names)}`)}`
