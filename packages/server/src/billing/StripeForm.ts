/**
 * Stripe's request encoding: `application/x-www-form-urlencoded` with nested keys in brackets
 * (`line_items[0][price]=price_1`, `metadata[account_id]=..`, `expand[0]=schedule`). Booleans are `true`/`false`.
 */

/** A parameter value: a scalar, a list, or a nested object of parameters. */
export type Param = string | number | boolean | ReadonlyArray<Param> | { readonly [key: string]: Param | undefined }

export type Params = { readonly [key: string]: Param | undefined }

const flatten = (key: string, value: Param | undefined, out: Array<[string, string]>): void => {
  if (value === undefined) return
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
    out.push([key, String(value)])
  } else if (isList(value)) {
    for (const [index, item] of value.entries()) flatten(`${key}[${index}]`, item, out)
  } else {
    for (const [k, v] of Object.entries(value)) flatten(`${key}[${k}]`, v, out)
  }
}

const isList = (value: Param): value is ReadonlyArray<Param> => Array.isArray(value)

/** The key-value pairs of `params`, in order, keys in bracket notation. */
export const pairs = (params: Params): ReadonlyArray<readonly [string, string]> => {
  const out: Array<[string, string]> = []
  for (const [key, value] of Object.entries(params)) flatten(key, value, out)
  return out
}

/** The encoded form body (or query string) of `params`. */
export const encode = (params: Params): string => new URLSearchParams(pairs(params).map(([k, v]) => [k, v])).toString()
