/**
 * Which sections of a form a person has changed, by the top-level key of the changed field's name (`check` for
 * `check.steps[1].selector`): an edit sends only those (client/monitorBody.ts). Typing and picking are seen from
 * their events; a script that changes a form's structure (a flow step added or moved) says so with `touch`.
 */
import { parsePath } from "./forms.js"

const changed = new WeakMap<HTMLFormElement, Set<string>>()

/** Marks a section of the form as changed. */
export const touch = (form: HTMLFormElement, key: string): void => {
  const keys = changed.get(form) ?? new Set<string>()
  keys.add(key)
  changed.set(form, keys)
}

/** The section a field belongs to: the first segment of its name. */
export const sectionOf = (name: string): string | undefined => {
  const first = parsePath(name)[0]
  return typeof first === "string" && first !== "" ? first : undefined
}

/** The sections changed so far. */
export const touchedOf = (form: HTMLFormElement): ReadonlySet<string> => changed.get(form) ?? new Set<string>()
