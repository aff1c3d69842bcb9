/**
 * A reader of RFC 8288 `Link` header values, for tests: `<target>; param=value; param="quoted", <target>...`.
 * Parameter names are case-insensitive (lower-cased here); when a parameter repeats, the first occurrence counts
 * (section 3.3 says so of `rel`); a quoted-string's backslash escapes are undone; `rel` may hold several relation
 * types separated by spaces (section 3.3), answered apart in `rels`. A value that breaks the grammar throws.
 */

export interface Link {
  /** The target, resolved against `base` when it is relative. */
  readonly href: string
  readonly rels: ReadonlyArray<string>
  readonly params: Readonly<Record<string, string>>
}

const TOKEN = /[!#$%&'*+\-.^_`|~0-9A-Za-z]/

export const parse = (value: string, base?: string): ReadonlyArray<Link> => {
  const links: Array<Link> = []
  let i = 0
  const fail = (why: string): never => {
    throw new Error(`Link header: ${why} at ${i} of ${JSON.stringify(value)}`)
  }
  const skipSpace = () => {
    while (value[i] === " " || value[i] === "\t") i++
  }
  const token = () => {
    const start = i
    while (i < value.length && TOKEN.test(value[i] ?? "")) i++
    if (i === start) fail("expected a token")
    return value.slice(start, i)
  }
  const quoted = () => {
    i++ // the opening quote
    let text = ""
    while (i < value.length && value[i] !== '"') {
      if (value[i] === "\\") i++
      text += value[i] ?? ""
      i++
    }
    if (value[i] !== '"') fail("unterminated quoted string")
    i++
    return text
  }
  while (i < value.length) {
    skipSpace()
    if (value[i] === ",") {
      i++
      continue
    }
    if (value[i] !== "<") fail("expected <")
    const end = value.indexOf(">", i)
    if (end === -1) fail("unterminated <target>")
    const target = value.slice(i + 1, end)
    i = end + 1
    const params: Record<string, string> = {}
    for (;;) {
      skipSpace()
      if (i >= value.length || value[i] === ",") break
      if (value[i] !== ";") fail("expected ; or ,")
      i++
      skipSpace()
      const name = token().toLowerCase()
      skipSpace()
      let paramValue = ""
      if (value[i] === "=") {
        i++
        skipSpace()
        paramValue = value[i] === '"' ? quoted() : token()
      }
      if (!(name in params)) params[name] = paramValue
    }
    const rel = params["rel"] ?? ""
    links.push({
      href: base === undefined ? target : new URL(target, base).href,
      rels: rel.split(/\s+/).filter((r) => r !== ""),
      params
    })
  }
  return links
}

/** The one link of `rel` in a header value; throws when there is none or more than one. */
export const only = (links: ReadonlyArray<Link>, rel: string): Link => {
  const found = links.filter((link) => link.rels.includes(rel))
  const [link] = found
  if (link === undefined || found.length !== 1) throw new Error(`expected one link rel=${rel}, found ${found.length}`)
  return link
}
