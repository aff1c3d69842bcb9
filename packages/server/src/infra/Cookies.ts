/**
 * Reading and writing the service's cookies. Every cookie is HttpOnly, Secure and SameSite=Lax (browsers treat
 * http://localhost as secure, so local development works too).
 */

/** The value of one cookie from a `Cookie` header, or undefined. */
export const readCookie = (header: string | undefined, name: string): string | undefined => {
  if (header === undefined) return undefined
  for (const part of header.split(";")) {
    const eq = part.indexOf("=")
    if (eq === -1) continue
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return undefined
}

export const setCookie = (name: string, value: string, maxAgeSecs: number, path = "/"): string =>
  `${name}=${value}; Path=${path}; Max-Age=${maxAgeSecs}; HttpOnly; Secure; SameSite=Lax`

export const clearCookie = (name: string, path = "/"): string =>
  `${name}=; Path=${path}; Max-Age=0; HttpOnly; Secure; SameSite=Lax`
