/**
 * Field-by-field comparison of two views of a resource (plain JSON, the same shape on both sides): maps are walked
 * to their leaves, so a change names its field (`check.url`, `config.headers.Authorization`); lists and scalars are
 * compared whole.
 *
 * @internal
 */
import * as Option from "effect/Option"
import * as KeyPath from "../KeyPath.js"
import { type FieldChange, SECRET } from "../Plan.js"

export type View = Readonly<Record<string, unknown>>

const isMap = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

export const equal = (a: unknown, b: unknown): boolean => {
  if (a === b) return true
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => equal(x, b[i]))
  if (isMap(a) && isMap(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)])
    return [...keys].every((k) => equal(a[k], b[k]))
  }
  return false
}

const hasSecret = (u: unknown): boolean =>
  u === SECRET || (Array.isArray(u) ? u.some(hasSecret) : isMap(u) ? Object.values(u).some(hasSecret) : false)

const change = (field: KeyPath.KeyPath, old: Option.Option<unknown>, next: Option.Option<unknown>): FieldChange => ({
  field: KeyPath.format(field),
  old,
  new: next,
  secret: Option.exists(old, hasSecret) || Option.exists(next, hasSecret)
})

// Absent keys (undefined) are no value, so a view can leave out a field it does not compare.
const present = (u: unknown): Option.Option<unknown> => (u === undefined ? Option.none() : Option.some(u))

const mapOf = (u: Option.Option<unknown>): Readonly<Record<string, unknown>> | undefined =>
  Option.isSome(u) && isMap(u.value) ? u.value : undefined

// Where both sides are maps (or one side is a map and the other has nothing) the walk goes down to the fields; a map
// on one side and a value on the other (`region_policy`: "majority" or { count }) is one change of the whole.
const walk = (
  path: KeyPath.KeyPath,
  before: Option.Option<unknown>,
  after: Option.Option<unknown>
): ReadonlyArray<FieldChange> => {
  const a = mapOf(before)
  const b = mapOf(after)
  if (
    (a !== undefined || Option.isNone(before)) &&
    (b !== undefined || Option.isNone(after)) &&
    (a ?? b) !== undefined
  ) {
    const keys = [...new Set([...Object.keys(b ?? {}), ...Object.keys(a ?? {})])]
    return keys.flatMap((key) => walk([...path, key], present(a?.[key]), present(b?.[key])))
  }
  if (Option.isNone(before) && Option.isNone(after)) return []
  if (Option.isSome(before) && Option.isSome(after) && equal(before.value, after.value)) return []
  return [change(path, before, after)]
}

/** Every field the view sets, as a create shows it. */
export const created = (view: View): ReadonlyArray<FieldChange> => walk([], Option.none(), Option.some(view))

/** The fields that differ: those of `after` in its order, then those only `before` has. */
export const changed = (before: View, after: View): ReadonlyArray<FieldChange> =>
  walk([], Option.some(before), Option.some(after))
