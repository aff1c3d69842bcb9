/**
 * A heartbeat's ping token: the capability in its ping URL (`<base>/ping/<token>`). 192 random bits in base64url,
 * so a token cannot be guessed and fits a URL path segment without escaping.
 */
import { randomBytes } from "node:crypto"

export const mint = (): string => randomBytes(24).toString("base64url")
