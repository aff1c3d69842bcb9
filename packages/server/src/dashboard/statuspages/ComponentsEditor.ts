/**
 * The editor's components: the monitors on the page in their public order, each with how it is shown (public name,
 * description, group) and a way to take it off; the order changed by dragging a row's handle or, from the keyboard,
 * by each row's Move up and Move down, and saved at once through the reorder endpoint (client/reorder.ts); and the
 * form that adds one of the org's other monitors. Every write is the API's own endpoint.
 */
import { type Html, html } from "../Template.js"
import { type ComponentView, groupOrder, type Monitor } from "./Describe.js"

export interface ComponentsInput {
  readonly pageId: string
  readonly components: ReadonlyArray<ComponentView>
  /** The org's monitors not on the page yet. */
  readonly addable: ReadonlyArray<Monitor>
  /** Whether the org has any monitor at all. */
  readonly anyMonitor: boolean
}

const GROUPS_LIST = "sp-groups"

const item = (pageId: string, c: ComponentView, i: number): Html => {
  const api = `/api/v1/status-pages/${pageId}/components/${c.targetId}`
  const id = `sp-c${i}`
  return html`<li class="sp-component" data-reorder-id="${c.targetId}" data-reorder-name="${c.shownName}">
<div class="sp-component-row">
<span class="sp-handle js-only" data-reorder-handle aria-hidden="true" title="Drag to reorder"></span>
<div class="sp-component-text">
<span class="sp-component-name">${c.shownName}</span>
${c.publicName !== null && c.monitorName !== null ? html`<span class="muted">Monitor: ${c.monitorName}</span>` : ""}
${c.group === null ? html`<span class="muted">No group</span>` : html`<span class="tag">Group: ${c.group}</span>`}
</div>
<div class="sp-component-actions">
<button type="button" class="js-only" data-move="up">Move up<span class="visually-hidden"> ${c.shownName}</span></button>
<button type="button" class="js-only" data-move="down">Move down<span class="visually-hidden"> ${c.shownName}</span></button>
<button type="button" class="danger js-only" data-action="${api}" data-method="DELETE"
  data-confirm="Take ${c.shownName} off the page?">Remove<span class="visually-hidden"> ${c.shownName}</span></button>
</div>
</div>
<details class="sp-component-edit">
<summary>Edit how ${c.shownName} is shown</summary>
<form data-api="${api}" data-method="PATCH" data-reload method="post" action="/dashboard/js-required">
<div class="field"><label for="${id}-name">Public name</label>
<input id="${id}-name" name="public_name" type="text" maxlength="100" value="${c.publicName ?? ""}" data-empty="null"
  aria-describedby="${id}-name-hint">
<p class="hint" id="${id}-name-hint">Empty shows the monitor's own name${c.monitorName === null ? "" : html` (${c.monitorName})`}.</p></div>
<div class="field"><label for="${id}-group">Group</label>
<input id="${id}-group" name="public_group" type="text" maxlength="100" value="${c.group ?? ""}" data-empty="null"
  list="${GROUPS_LIST}"></div>
<div class="field"><label for="${id}-description">Public description</label>
<textarea id="${id}-description" name="public_description" rows="2" maxlength="500" data-empty="null">${c.description ?? ""}</textarea></div>
<p data-form-status role="status"></p>
<button type="submit">Save ${c.shownName}</button>
</form>
</details>
</li>`
}

const addForm = (input: ComponentsInput): Html => {
  if (!input.anyMonitor) {
    return html`<p>This org has no monitors yet. <a href="/monitors/new">Create a monitor</a> first, then add it here.</p>`
  }
  if (input.addable.length === 0) return html`<p class="muted">Every monitor of the org is on this page.</p>`
  return html`<form class="sp-add" data-api="/api/v1/status-pages/${input.pageId}/components" data-method="POST"
  data-reload method="post" action="/dashboard/js-required">
<h3>Add a monitor</h3>
<div class="field"><label for="sp-add-target">Monitor</label>
<select id="sp-add-target" name="target_id" required>
${input.addable.map((m) => html`<option value="${m.id}">${m.name}</option>`)}
</select></div>
<div class="field"><label for="sp-add-name">Public name (optional)</label>
<input id="sp-add-name" name="public_name" type="text" maxlength="100" aria-describedby="sp-add-name-hint">
<p class="hint" id="sp-add-name-hint">What the public page calls it; empty shows the monitor's own name.</p></div>
<div class="field"><label for="sp-add-group">Group (optional)</label>
<input id="sp-add-group" name="public_group" type="text" maxlength="100" list="${GROUPS_LIST}"></div>
<div class="field"><label for="sp-add-description">Public description (optional)</label>
<textarea id="sp-add-description" name="public_description" rows="2" maxlength="500"></textarea></div>
<p data-form-status role="status"></p>
<button type="submit" class="primary">Add to page</button>
</form>`
}

export const render = (input: ComponentsInput): Html => {
  const groups = groupOrder(input.components).filter((g): g is string => g !== null)
  return html`<section aria-labelledby="h-components">
<h2 id="h-components">Components</h2>
<p>The monitors shown on the public page, in this order. Components of one group are shown together under its name,
the groups in the order of their first component.</p>
${
  input.components.length === 0
    ? html`<p class="muted">No components yet: add a monitor below.</p>`
    : html`<p class="hint js-only">Drag a component by its handle, or use Move up and Move down. The new order is saved at once.</p>
<p id="sp-order-status" class="sp-order-status" role="status"></p>
<ol class="sp-components" data-reorder="/api/v1/status-pages/${input.pageId}/components/reorder"
  data-reorder-field="target_ids" data-reorder-status="sp-order-status" aria-label="Components in their order">
${input.components.map((c, i) => item(input.pageId, c, i))}
</ol>`
}
<datalist id="${GROUPS_LIST}">${groups.map((g) => html`<option value="${g}"></option>`)}</datalist>
${addForm(input)}
</section>`
}
