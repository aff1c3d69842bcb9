/**
 * The on-call forms' bodies in the API's shapes, from what their fields read as (forms.ts `bodyOf`): a schedule's
 * participant slots left at "Nobody" are gaps, a spare layer with no participants and a restriction with no day
 * are not meant, a layer or step ticked for removal goes; a policy's targets are written `type:id` by their
 * checkboxes and become `{ type, id }`, and a spare step with no target is not meant. Pure (no DOM), so its rules
 * are unit-tested; client/oncall.ts gathers what it needs from the page.
 */
import { isRecord } from "./monitorBody.js"

/** Which rows of a list the page marks: spare (offered to add) and removed (ticked for removal). */
export interface Rows {
  readonly spare: ReadonlySet<number>
  readonly removed: ReadonlySet<number>
}

// `bodyOf` leaves holes where a field was left out (an empty slot); they are not values.
const present = (list: unknown): ReadonlyArray<unknown> =>
  Array.isArray(list) ? list.filter((item) => item !== null && item !== undefined && item !== "") : []

const keptRows = (
  list: unknown,
  rows: Rows,
  meant: (row: Record<string, unknown>) => boolean
): ReadonlyArray<Record<string, unknown>> =>
  (Array.isArray(list) ? [...list.entries()] : []).flatMap(([i, row]: [number, unknown]) =>
    isRecord(row) && !rows.removed.has(i) && (!rows.spare.has(i) || meant(row)) ? [row] : []
  )

/** A schedule's body: layers compacted as the module comment says. */
export const shapeSchedule = (body: Record<string, unknown>, rows: Rows): Record<string, unknown> => {
  if (!("layers" in body)) return body
  const layers = keptRows(body["layers"], rows, (layer) => present(layer["participants"]).length > 0).map((layer) => ({
    ...layer,
    participants: present(layer["participants"]),
    restrictions: present(layer["restrictions"]).filter(
      (r) => isRecord(r) && Array.isArray(r["days"]) && r["days"].length > 0
    )
  }))
  return { ...body, layers }
}

/** `user:0195...` → `{ type: "user", id: "0195..." }`. */
export const targetOf = (value: unknown): unknown => {
  if (typeof value !== "string") return value
  const colon = value.indexOf(":")
  return colon === -1 ? value : { type: value.slice(0, colon), id: value.slice(colon + 1) }
}

/** A policy's body: steps kept and their targets as objects. */
export const shapePolicy = (body: Record<string, unknown>, rows: Rows): Record<string, unknown> => {
  if (!("steps" in body)) return body
  const steps = keptRows(body["steps"], rows, (step) => present(step["targets"]).length > 0).map((step) => ({
    ...step,
    targets: present(step["targets"]).map(targetOf)
  }))
  return { ...body, steps }
}
