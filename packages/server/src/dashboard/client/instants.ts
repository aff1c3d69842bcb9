/**
 * Instants between the API and a `datetime-local` input. The API takes and answers RFC 3339 instants (UTC); the
 * input holds a wall-clock time with no zone, which a person means in their own time zone. These convert between
 * the two in the browser's zone (the one `Date` reads local fields in). Pure (no DOM), so they are unit-tested.
 */

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?$/

const pad = (n: number, width = 2) => String(n).padStart(width, "0")

/**
 * A `datetime-local` value (`2026-05-01T22:00`, seconds optional) read in the browser's zone, as an RFC 3339
 * instant in UTC (`2026-05-01T20:00:00.000Z` in Paris in May); undefined when it is not a real date and time (the
 * 31st of a short month, say). A wall-clock time skipped by a daylight-saving change reads as the time after it.
 */
export const instantOf = (local: string): string | undefined => {
  const match = LOCAL.exec(local.trim())
  if (match === null) return undefined
  const number = (index: number) => Number(match[index] ?? "0")
  const year = number(1)
  const month = number(2)
  const day = number(3)
  const millis = Number((match[7] ?? "0").padEnd(3, "0"))
  if (number(4) > 23 || number(5) > 59 || number(6) > 59) return undefined
  const date = new Date(year, month - 1, day, number(4), number(5), number(6), millis)
  // Date rolls an impossible day over into the next month; a value that does not come back as written is refused.
  if (Number.isNaN(date.getTime())) return undefined
  if (date.getFullYear() !== year || date.getMonth() !== month - 1 || date.getDate() !== day) return undefined
  return date.toISOString()
}

/**
 * An instant as a `datetime-local` value in the browser's zone: minutes, with seconds (and milliseconds) only when
 * the instant has them, so a value sent back unchanged is the same instant. Undefined for a text that is no instant.
 */
export const localOf = (iso: string): string | undefined => {
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return undefined
  const day = `${pad(date.getFullYear(), 4)}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`
  const time = `${pad(date.getHours())}:${pad(date.getMinutes())}`
  const seconds = date.getSeconds()
  const millis = date.getMilliseconds()
  if (seconds === 0 && millis === 0) return `${day}T${time}`
  return millis === 0 ? `${day}T${time}:${pad(seconds)}` : `${day}T${time}:${pad(seconds)}.${pad(millis, 3)}`
}
