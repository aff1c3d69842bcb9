/**
 * The labelled controls the monitor form is made of. Each is named by the API's own path (`check.url`), so an error
 * the API names lands on it (client/forms.ts), carries its hint through `aria-describedby`, and sits in a `.field`
 * block where the error note is placed. Ids are derived from names, so a label always finds its control.
 */
import { attributes, type Html, html, type Part } from "../Template.js"

/** A control's id from its name: `check.steps[1].selector` → `f-check-steps-1-selector`. */
export const idOf = (name: string): string => `f-${name.replace(/[^A-Za-z0-9]+/g, "-").replace(/-$/, "")}`

type Attrs = Readonly<Record<string, string | number | boolean | null | undefined>>

interface Common {
  readonly name: string
  readonly label: string
  readonly hint?: Part
  /** Overrides the id derived from the name (rows that are renumbered keep their own scheme). */
  readonly id?: string
  readonly attrs?: Attrs
  /** Attributes of the field's block (`hidden` while it does not apply). */
  readonly block?: Attrs
}

const hintOf = (id: string, hint: Part | undefined): Html | undefined =>
  hint === undefined ? undefined : html`<p class="hint" id="${id}-hint">${hint}</p>`

const described = (id: string, hint: Part | undefined): Attrs => ({
  "aria-describedby": hint === undefined ? undefined : `${id}-hint`
})

/** A one-line text (or URL, password, number) input. */
export const input = (
  options: Common & {
    readonly value: string | number | undefined | null
    readonly type?: "text" | "number" | "password"
  }
): Html => {
  const id = options.id ?? idOf(options.name)
  const type = options.type ?? "text"
  return html`<div class="field"${attributes(options.block ?? {})}>
<label for="${id}">${options.label}</label>
<input${attributes({
    id,
    name: options.name,
    type,
    value: options.value ?? "",
    // Numbers are read as numbers (forms.ts), and a fraction is allowed only where the attrs say so.
    "data-type": type === "number" ? "number" : undefined,
    step: type === "number" ? 1 : undefined,
    ...described(id, options.hint),
    ...options.attrs
  })}>
${hintOf(id, options.hint)}
</div>`
}

/** A multi-line text. */
export const textarea = (options: Common & { readonly value: string | undefined; readonly rows?: number }): Html => {
  const id = options.id ?? idOf(options.name)
  return html`<div class="field">
<label for="${id}">${options.label}</label>
<textarea${attributes({ id, name: options.name, rows: options.rows ?? 3, ...described(id, options.hint), ...options.attrs })}>${options.value ?? ""}</textarea>
${hintOf(id, options.hint)}
</div>`
}

/** A choice of one among fixed options. */
export const select = (
  options: Common & {
    readonly value: string | undefined
    readonly choices: ReadonlyArray<{ readonly value: string; readonly label: string }>
  }
): Html => {
  const id = options.id ?? idOf(options.name)
  return html`<div class="field">
<label for="${id}">${options.label}</label>
<select${attributes({ id, name: options.name, ...described(id, options.hint), ...options.attrs })}>
${options.choices.map((c) => html`<option${attributes({ value: c.value, selected: c.value === options.value })}>${c.label}</option>`)}
</select>
${hintOf(id, options.hint)}
</div>`
}

/** A yes/no setting, always sent (forms.ts reads a checkbox's checked state). */
export const checkbox = (options: Common & { readonly checked: boolean }): Html => {
  const id = options.id ?? idOf(options.name)
  return html`<div class="field">
<label class="inline" for="${id}"><input${attributes({
    id,
    name: options.name,
    type: "checkbox",
    checked: options.checked,
    ...described(id, options.hint),
    ...options.attrs
  })}> ${options.label}</label>
${hintOf(id, options.hint)}
</div>`
}

/** Choices of many among fixed options, sent as a list of their values (`data-type="set"`). */
export const checkboxes = (options: {
  readonly name: string
  readonly legend: string
  readonly hint?: Part
  readonly choices: ReadonlyArray<{
    readonly value: string
    readonly label: Part
    readonly checked: boolean
    readonly disabled?: boolean
  }>
  /** Said instead of the list when there is nothing to choose. */
  readonly empty: Part
}): Html => {
  const base = idOf(options.name)
  // Focusable, so an error on the list as a whole (none chosen, an unknown one) can take the focus.
  return html`<fieldset class="field choices" data-field="${options.name}" tabindex="-1"${attributes(described(base, options.hint))}>
<legend>${options.legend}</legend>
${
  options.choices.length === 0
    ? html`<p class="muted">${options.empty}</p>`
    : html`<ul class="choice-list">
${options.choices.map(
  (c, i) =>
    html`<li><label class="inline" for="${base}-${i}"><input${attributes({
      id: `${base}-${i}`,
      type: "checkbox",
      name: options.name,
      value: c.value,
      "data-type": "set",
      checked: c.checked,
      disabled: c.disabled ?? false
    })}> ${c.label}</label></li>`
)}
</ul>`
}
${hintOf(base, options.hint)}
</fieldset>`
}
