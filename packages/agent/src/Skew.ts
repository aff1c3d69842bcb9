/**
 * The difference between the service's clock and the agent's. Jobs carry their due time and lease end in the
 * service's epoch milliseconds, and results their `checked_at`; an agent on a machine whose clock is off would
 * otherwise run every check early or late by that much (or past its lease, where a sibling may run it too).
 *
 * The protocol carries no clock reading, so the offset is estimated from the `Date` header of each hello's answer
 * (RFC 9110: the time the answer was made, to the whole second). The service's clock then read some instant in
 * `[D, D + 1000)` while the agent's read between sending the request and receiving the answer, so the offset lies
 * in `[D - received, D + 1000 - sent]`. The agent takes the value of that interval nearest to zero: clocks in step
 * to within a second and a round trip (any machine running NTP) get no correction at all, and a clock that is
 * minutes off is corrected to within about a second, which the lease (at least several seconds) absorbs.
 *
 * @since 0.1.0
 */
import * as Option from "effect/Option"

/**
 * The service's clock minus the agent's, in milliseconds.
 *
 * @since 0.1.0
 * @category models
 */
export type Offset = number

/**
 * The offset an answer's `Date` header shows, given when the request went out and the answer came back on the
 * agent's clock; none when the header is missing or does not parse.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromDateHeader = (
  header: string | null | undefined,
  sentAt: number,
  receivedAt: number
): Option.Option<Offset> => {
  if (header === null || header === undefined) return Option.none()
  const stamped = Date.parse(header)
  if (Number.isNaN(stamped)) return Option.none()
  const low = stamped - receivedAt
  const high = stamped + 1000 - sentAt
  if (low > 0) return Option.some(low)
  if (high < 0) return Option.some(high)
  return Option.some(0)
}

/**
 * A time on the service's clock (a job's `due_ms`) on the agent's.
 *
 * @since 0.1.0
 * @category combinators
 */
export const toLocal = (serviceMs: number, offset: Offset): number => serviceMs - offset

/**
 * A time on the agent's clock (when a check ended) on the service's.
 *
 * @since 0.1.0
 * @category combinators
 */
export const toService = (localMs: number, offset: Offset): number => localMs + offset
