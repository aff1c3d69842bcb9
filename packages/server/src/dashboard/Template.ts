/**
 * Typed HTML templates that escape by default. `html` is a tagged template: every interpolated string or number is
 * escaped, an `Html` (another template, or `raw` text the code itself wrote) goes in as it is, arrays are joined, and
 * `null`, `undefined` and `false` render nothing (so `${cond && html`...`}` reads naturally). Nothing a user typed
 * can become markup unless a module wraps it in `raw`, which only the dashboard's own constants do.
 */
import { escapeHtml } from "../http/Html.js"

/** A fragment of markup that is safe to emit as it is. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text
  }
}

/** What a template may interpolate. */
export type Part = Html | string | number | bigint | null | undefined | false | ReadonlyArray<Part>

const renderPart = (part: Part): string => {
  if (part === null || part === undefined || part === false) return ""
  if (part instanceof Html) return part.text
  if (Array.isArray(part)) return part.map(renderPart).join("")
  return escapeHtml(String(part))
}

/** Markup with every interpolation escaped (see the module comment). */
export const html = (strings: TemplateStringsArray, ...parts: ReadonlyArray<Part>): Html => {
  let text = strings[0] ?? ""
  for (let i = 0; i < parts.length; i++) text += renderPart(parts[i] as Part) + (strings[i + 1] ?? "")
  return new Html(text)
}

/** Markup the code wrote itself (an icon, a constant). Never pass anything that came from a request or a row. */
export const raw = (trusted: string): Html => new Html(trusted)

/** The empty fragment. */
export const nothing: Html = new Html("")

/** Joins fragments with a separator (itself escaped unless it is `Html`). */
export const join = (parts: ReadonlyArray<Part>, separator: Part = ""): Html =>
  new Html(parts.map(renderPart).join(renderPart(separator)))

/**
 * Attributes from a record: `true` writes the bare attribute, `false`/`null`/`undefined` leaves it out, anything else
 * is escaped. Names are the code's own, never a user's.
 */
export const attributes = (attrs: Readonly<Record<string, string | number | boolean | null | undefined>>): Html =>
  new Html(
    Object.entries(attrs)
      .flatMap(([name, value]) => {
        if (value === false || value === null || value === undefined) return []
        return value === true ? [` ${name}`] : [` ${name}="${escapeHtml(String(value))}"`]
      })
      .join("")
  )
