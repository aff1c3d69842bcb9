/**
 * Seconds said the way a person reads them beside a seconds field: 43200 is "12 hours", 90 is "90 seconds" (the
 * largest unit that divides it exactly, so the words never round what the field holds).
 */

const units: ReadonlyArray<readonly [number, string]> = [
  [86400, "day"],
  [3600, "hour"],
  [60, "minute"],
  [1, "second"]
]

/** `seconds` in the largest whole unit: "1 day", "12 hours", "3 minutes", "90 seconds". */
export const spoken = (seconds: number): string => {
  if (!Number.isInteger(seconds) || seconds <= 0) return `${seconds} seconds`
  const [size, unit] = units.find(([size]) => seconds % size === 0) ?? [1, "second"]
  const count = seconds / size
  return `${count} ${unit}${count === 1 ? "" : "s"}`
}
