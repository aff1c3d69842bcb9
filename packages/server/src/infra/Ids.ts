/**
 * Ids are UUIDv7 made by the application (decisions.md): time-ordered, so new rows land at the end of indexes.
 */
import { randomBytes } from "node:crypto"

// RFC 9562 6.2, method 1: within one millisecond the 12 bits after the version count up from a random start, so
// ids made by this process are strictly ordered (rows inserted in one millisecond list in the order they were made).
let lastMs = 0
let sequence = 0

// Random bytes drawn 4 KiB at a time and used 16 an id, each window once: a call to the system's generator per id
// was a twentieth of the heartbeat ingest's CPU (one id per ping, thousands a second).
const POOL_BYTES = 4096
let pool = Buffer.alloc(0)
let offset = 0

const random16 = (): Buffer => {
  if (offset + 16 > pool.length) {
    pool = randomBytes(POOL_BYTES)
    offset = 0
  }
  const bytes = pool.subarray(offset, offset + 16)
  offset += 16
  return bytes
}

/** A UUIDv7 of now, ordered after every one this process made before; `at` dates it instead (not ordered). */
export const uuidv7 = (at?: number): string => {
  const bytes = random16()
  let ms: number
  if (at !== undefined) {
    ms = at
    bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x70
  } else {
    const now = Date.now()
    if (now > lastMs) {
      lastMs = now
      // Start low in the range so a burst has room to count before it spills into the next millisecond.
      sequence = bytes.readUInt16BE(6) & 0x7ff
    } else if (++sequence > 0xfff) {
      lastMs += 1
      sequence = 0
    }
    ms = lastMs
    bytes[6] = 0x70 | (sequence >> 8)
    bytes[7] = sequence & 0xff
  }
  bytes.writeUIntBE(ms, 0, 6)
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80
  const hex = bytes.toString("hex")
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}
