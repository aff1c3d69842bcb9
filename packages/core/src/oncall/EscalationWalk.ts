/**
 * The walk of an escalation policy (decisions.md "On-call: schedules and escalation policies"): from the moment an
 * incident opened, the pages in order and when each is due. Step `s` of a round is due `delay_minutes` after the
 * step before it (after the incident opened, for the first step of the first round; after the last step of the
 * round before, for the first step of a later round), and the whole list is walked `repeat` more times. Pages are
 * numbered from 0 across rounds, so page `n` is step `n % steps` of round `floor(n / steps)`.
 *
 * Whether a page is sent is the walker's business (acknowledging or resolving stops it); this module only says
 * what is due when.
 *
 * @since 0.2.0
 */

/**
 * The rules a walk needs from a policy (a decoded `EscalationPolicy` is one). `T` is the type of a target.
 *
 * @since 0.2.0
 * @category models
 */
export interface WalkRules<T> {
  readonly steps: ReadonlyArray<{ readonly delay_minutes: number; readonly targets: ReadonlyArray<T> }>
  readonly repeat: number
}

/**
 * One page: the `n`-th of the walk (from 0), step `step` of round `round` (both from 0), due at `due_at`.
 *
 * @since 0.2.0
 * @category models
 */
export interface Page<T> {
  readonly n: number
  readonly round: number
  readonly step: number
  readonly due_at: Date
  readonly targets: ReadonlyArray<T>
}

const MINUTE = 60_000

const minutes = <T>(policy: WalkRules<T>) => policy.steps.map((s) => s.delay_minutes)

/**
 * How many pages the walk has: every step, `repeat + 1` times.
 *
 * @since 0.2.0
 * @category answers
 */
export const pageCount = <T>(policy: WalkRules<T>): number => policy.steps.length * (Math.max(0, policy.repeat) + 1)

/**
 * The `n`-th page (from 0) of the walk of an incident opened at `openedAt`, or null when the walk has no such page
 * (`n` negative, not an integer, or past the last round).
 *
 * @since 0.2.0
 * @category answers
 */
export const pageAt = <T>(policy: WalkRules<T>, openedAt: Date, n: number): Page<T> | null => {
  const steps = policy.steps.length
  if (!Number.isInteger(n) || n < 0 || n >= pageCount(policy)) return null
  const round = Math.floor(n / steps)
  const step = n % steps
  const delays = minutes(policy)
  const perRound = delays.reduce((sum, d) => sum + d, 0)
  const intoRound = delays.slice(0, step + 1).reduce((sum, d) => sum + d, 0)
  const current = policy.steps[step]
  if (current === undefined) return null
  return {
    n,
    round,
    step,
    due_at: new Date(openedAt.getTime() + (round * perRound + intoRound) * MINUTE),
    targets: current.targets
  }
}

/**
 * Every page of the walk, in order.
 *
 * @since 0.2.0
 * @category answers
 */
export const pages = <T>(policy: WalkRules<T>, openedAt: Date): ReadonlyArray<Page<T>> =>
  Array.from({ length: pageCount(policy) }, (_, n) => pageAt(policy, openedAt, n)).filter(
    (page): page is Page<T> => page !== null
  )

/**
 * The first page not yet due at `now` (due strictly after it), or null when every page is due: when a walker
 * next has something to do.
 *
 * @since 0.2.0
 * @category answers
 */
export const nextPageAfter = <T>(policy: WalkRules<T>, openedAt: Date, now: Date): Page<T> | null =>
  pages(policy, openedAt).find((page) => page.due_at.getTime() > now.getTime()) ?? null
