/**
 * Holds (service-api.md "Billing": "Nothing is deleted when a smaller plan does not cover everything: the excess is
 * held"): which of an account's monitors or status pages its plan holds. Pure: the engine's upkeep applies the
 * same rule in SQL to every account on each refresh (`engine/Repo.ts`, `refreshHolds`), and `PUT
 * /api/v1/account/holds` applies it here to the one account it changes, so a pick takes effect at once.
 *
 * The rule: resources are ranked, the ones the owner picked to keep first, then the rest; within each, oldest
 * first (creation time, then id, so two made in the same instant rank the same everywhere). The first `limit` are
 * live, the rest held. So after a downgrade with no pick the newest beyond the limit are held; a pick decides while
 * it fits the plan (a pick of fewer than the plan allows leaves the free places to the oldest others: nothing the
 * plan covers is held); a pick larger than a later, smaller plan keeps its oldest; a larger plan releases them.
 *
 * @since 0.1.0
 */

/**
 * A monitor or status page as the rule sees it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Holdable {
  readonly id: string
  readonly createdAt: Date
}

const rank =
  (keep: ReadonlySet<string>) =>
  (a: Holdable, b: Holdable): number => {
    const kept = Number(keep.has(b.id)) - Number(keep.has(a.id))
    if (kept !== 0) return kept
    const age = a.createdAt.getTime() - b.createdAt.getTime()
    if (age !== 0) return age
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0
  }

/**
 * The ids held: beyond `limit` in the ranking (kept first, then oldest first). Ids in `keep` that are not among
 * `resources` are ignored (the caller validates a pick before storing it).
 *
 * @since 0.1.0
 * @category rules
 */
export const held = (
  resources: ReadonlyArray<Holdable>,
  keep: ReadonlySet<string>,
  limit: number
): ReadonlySet<string> => {
  const ranked = [...resources].sort(rank(keep))
  return new Set(ranked.slice(Math.max(0, limit)).map((r) => r.id))
}

/**
 * Where a pick names something that is not among `resources`: the index of the first such id, or undefined when
 * every id is one of them.
 *
 * @since 0.1.0
 * @category rules
 */
export const firstForeign = (pick: ReadonlyArray<string>, resources: ReadonlyArray<Holdable>): number | undefined => {
  const ids = new Set(resources.map((r) => r.id))
  const index = pick.findIndex((id) => !ids.has(id))
  return index === -1 ? undefined : index
}
