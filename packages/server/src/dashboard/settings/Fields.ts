/**
 * Labelled form fields for the settings pages: each input has its label, and its hint tied to it by
 * `aria-describedby`, so the API's error (added by the form script next to the hint) and the hint are both read
 * with the field. `name` is always the API's own path of the value.
 */
import { attributes, type Html, html, type Part } from "../Template.js"

type Attrs = Readonly<Record<string, string | number | boolean | null | undefined>>

export interface Field {
  readonly id: string
  /** The API's path of the value (`config.url`). */
  readonly name: string
  readonly label: Part
  readonly hint?: Part
  /** Extra attributes: `type`, `value`, `required`, `data-type`, `data-empty`, ... */
  readonly attrs?: Attrs
}

const hintOf = (field: Field): Html =>
  field.hint === undefined ? html`` : html`<p class="hint" id="${field.id}-hint">${field.hint}</p>`

const described = (field: Field): Attrs => (field.hint === undefined ? {} : { "aria-describedby": `${field.id}-hint` })

/** `<input>`: text unless `attrs.type` says otherwise. */
export const input = (field: Field): Html => html`<div class="field"><label for="${field.id}">${field.label}</label>
<input${attributes({ type: "text", ...field.attrs, id: field.id, name: field.name, ...described(field) })}>
${hintOf(field)}</div>`

/** `<textarea>` holding `value`. */
export const textarea = (
  field: Field & { readonly value?: string }
): Html => html`<div class="field"><label for="${field.id}">${field.label}</label>
<textarea${attributes({ rows: 3, ...field.attrs, id: field.id, name: field.name, ...described(field) })}>${field.value ?? ""}</textarea>
${hintOf(field)}</div>`

/** `<select>` of `[value, label]` options, `selected` chosen. */
export const select = (
  field: Field & { readonly options: ReadonlyArray<readonly [string, string]>; readonly selected?: string }
): Html => html`<div class="field"><label for="${field.id}">${field.label}</label>
<select${attributes({ ...field.attrs, id: field.id, name: field.name, ...described(field) })}>
${field.options.map(([value, label]) => html`<option${attributes({ value, selected: value === field.selected })}>${label}</option>`)}
</select>
${hintOf(field)}</div>`

/** A checkbox sent as true or false. */
export const checkbox = (
  field: Field & { readonly checked: boolean }
): Html => html`<div class="field"><label class="inline">
<input${attributes({ type: "checkbox", "data-type": "boolean", ...field.attrs, id: field.id, name: field.name, checked: field.checked, ...described(field) })}> ${field.label}</label>
${hintOf(field)}</div>`

/** A hidden value sent with the form (the kind of a new channel, a secret kept as it is). */
export const hidden = (name: string, value: string, attrs: Attrs = {}): Html =>
  html`<input${attributes({ type: "hidden", ...attrs, name, value })}>`

/** The line a form's script writes its outcome to (announced). */
export const status: Html = html`<p class="form-status" data-form-status role="status"></p>`
