/**
 * Address ranges as `server.trusted_proxies` lists them: an address or a CIDR range, IPv4 or IPv6. Parsed with the
 * configuration; `http/ClientAddress.ts` resolves a client's address with them.
 */
import { isIP } from "node:net"

/** A parsed `server.trusted_proxies` entry: an address or a CIDR range, IPv4 or IPv6. */
export interface AddressRange {
  readonly address: string
  readonly prefix: number
  readonly family: 4 | 6
}

const MAPPED_V4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i

/** An IPv4 address written as IPv6 (`::ffff:192.0.2.1`, how a dual-stack socket reports it) in its IPv4 form. */
export const normalize = (address: string): string => MAPPED_V4.exec(address)?.[1] ?? address

/** `10.0.0.0/8`, `192.0.2.7`, `fd00::/8` or `::1`, or a reason it is none of them. */
export const parseRange = (text: string): AddressRange | string => {
  const [address = "", prefixText, ...rest] = text.trim().split("/")
  const family = isIP(address)
  if (family !== 4 && family !== 6) return `${JSON.stringify(text)} is not an IP address or CIDR range`
  const max = family === 4 ? 32 : 128
  if (rest.length > 0 || (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText))) {
    return `${JSON.stringify(text)} has a malformed prefix length`
  }
  const prefix = prefixText === undefined ? max : Number(prefixText)
  if (prefix > max) return `${JSON.stringify(text)}: the prefix length of an IPv${family} range is at most ${max}`
  return { address, prefix, family }
}
