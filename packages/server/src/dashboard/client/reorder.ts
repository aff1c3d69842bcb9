/**
 * Lists whose order is saved through the API at once: `<ol data-reorder="/api/v1/.../reorder"
 * data-reorder-field="target_ids" data-reorder-status="<id of a live region>">` holding items `<li data-reorder-id
 * data-reorder-name>`. An item moves by one with its `[data-move="up"|"down"]` buttons (the keyboard's way) or is
 * dragged by its `[data-reorder-handle]`. Dragging uses pointer events (mouse, pen and touch alike) rather than the
 * native drag-and-drop, which neither keyboards nor touch screens drive well. After a move the whole order is sent
 * (`{ [field]: [ids...] }`), one request at a time, each with the order as it then stands; a refusal puts back the
 * last order the API accepted and says why.
 */
import { flash } from "./actions.js"
import { call } from "./api.js"

interface ListState {
  /** The order the API last accepted (the page's, until a save). */
  saved: ReadonlyArray<string>
  /** Saves run one after another, so a quick second move is never overtaken by the first. */
  chain: Promise<void>
}

const states = new WeakMap<HTMLElement, ListState>()

const itemsOf = (list: HTMLElement): ReadonlyArray<HTMLElement> =>
  [...list.children].filter((c): c is HTMLElement => c instanceof HTMLElement && c.dataset["reorderId"] !== undefined)

const orderOf = (list: HTMLElement): ReadonlyArray<string> => itemsOf(list).map((i) => i.dataset["reorderId"] ?? "")

const sameOrder = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) =>
  a.length === b.length && a.every((id, i) => id === b[i])

const stateOf = (list: HTMLElement): ListState => {
  const known = states.get(list)
  if (known !== undefined) return known
  const fresh: ListState = { saved: orderOf(list), chain: Promise.resolve() }
  states.set(list, fresh)
  return fresh
}

/** Says how a move went in the list's own live region (else the page's). */
const say = (list: HTMLElement, message: string, error = false) => {
  const id = list.dataset["reorderStatus"]
  const region = id === undefined ? null : document.getElementById(id)
  if (region === null) {
    flash(message, error ? "error" : "info")
    return
  }
  region.textContent = message
  region.classList.toggle("error", error)
}

const buttonOf = (item: HTMLElement, direction: "up" | "down") =>
  item.querySelector<HTMLButtonElement>(`button[data-move="${direction}"]`)

/** The first item cannot go up nor the last down: their buttons say so by being disabled. */
const refreshButtons = (list: HTMLElement) => {
  const items = itemsOf(list)
  items.forEach((item, i) => {
    const up = buttonOf(item, "up")
    const down = buttonOf(item, "down")
    if (up !== null) up.disabled = i === 0
    if (down !== null) down.disabled = i === items.length - 1
  })
}

const restore = (list: HTMLElement, order: ReadonlyArray<string>) => {
  const byId = new Map(itemsOf(list).map((item) => [item.dataset["reorderId"] ?? "", item]))
  for (const id of order) {
    const item = byId.get(id)
    if (item !== undefined) list.appendChild(item)
  }
  refreshButtons(list)
}

const nameOf = (item: HTMLElement) => item.dataset["reorderName"] ?? "The item"

/** Sends the list's order as it stands when its turn comes; on refusal, puts back the last accepted order. */
const save = (list: HTMLElement, moved: HTMLElement) => {
  const state = stateOf(list)
  state.chain = state.chain.then(async () => {
    const order = orderOf(list)
    if (sameOrder(order, state.saved)) return
    const path = list.dataset["reorder"] ?? ""
    const field = list.dataset["reorderField"] ?? "ids"
    list.setAttribute("aria-busy", "true")
    const outcome = await call("POST", path, { [field]: order })
    list.removeAttribute("aria-busy")
    if (outcome.ok) {
      state.saved = order
      const position = itemsOf(list).indexOf(moved) + 1
      say(list, `${nameOf(moved)} is now ${position} of ${order.length}. The order is saved.`)
    } else {
      restore(list, state.saved)
      say(list, `The order was not saved: ${outcome.failure.message}`, true)
    }
  })
}

/** Moves an item one place by its button, keeping the keyboard's focus on the item. */
const moveByButton = (button: HTMLButtonElement, direction: "up" | "down") => {
  const item = button.closest<HTMLElement>("[data-reorder-id]")
  const list = item?.parentElement
  if (item === null || item === undefined || !(list instanceof HTMLElement) || list.dataset["reorder"] === undefined) {
    return
  }
  stateOf(list)
  const sibling = direction === "up" ? item.previousElementSibling : item.nextElementSibling
  if (!(sibling instanceof HTMLElement)) return
  if (direction === "up") list.insertBefore(item, sibling)
  else list.insertBefore(sibling, item)
  refreshButtons(list)
  // Moving a node can drop its focus; at either end the button pressed is now disabled, so the other one takes it.
  const focus = button.disabled ? buttonOf(item, direction === "up" ? "down" : "up") : button
  focus?.focus()
  save(list, item)
}

interface Drag {
  readonly list: HTMLElement
  readonly item: HTMLElement
  readonly handle: HTMLElement
  readonly pointerId: number
  readonly before: ReadonlyArray<string>
}

let drag: Drag | undefined

/** Places the dragged item before the first other item whose middle is below the pointer (else last). */
const follow = (current: Drag, y: number) => {
  const others = itemsOf(current.list).filter((i) => i !== current.item)
  const next = others.find((other) => {
    const box = other.getBoundingClientRect()
    return y < box.top + box.height / 2
  })
  if (next === undefined) {
    if (current.list.lastElementChild !== current.item) current.list.appendChild(current.item)
  } else if (current.item.nextElementSibling !== next) {
    current.list.insertBefore(current.item, next)
  }
}

const endDrag = (keep: boolean) => {
  const current = drag
  if (current === undefined) return
  drag = undefined
  current.item.classList.remove("dragging")
  if (current.handle.hasPointerCapture(current.pointerId)) current.handle.releasePointerCapture(current.pointerId)
  refreshButtons(current.list)
  if (!keep) {
    restore(current.list, current.before)
    return
  }
  if (!sameOrder(orderOf(current.list), current.before)) save(current.list, current.item)
}

export const install = () => {
  for (const list of document.querySelectorAll<HTMLElement>("[data-reorder]")) {
    stateOf(list)
    refreshButtons(list)
  }

  document.addEventListener("click", (event) => {
    const target = event.target
    if (!(target instanceof Element)) return
    const button = target.closest("button[data-move]")
    if (!(button instanceof HTMLButtonElement)) return
    const direction = button.dataset["move"]
    if (direction !== "up" && direction !== "down") return
    event.preventDefault()
    moveByButton(button, direction)
  })

  document.addEventListener("pointerdown", (event) => {
    if (event.button !== 0 || !(event.target instanceof Element)) return
    const handle = event.target.closest<HTMLElement>("[data-reorder-handle]")
    const item = handle?.closest<HTMLElement>("[data-reorder-id]")
    const list = item?.parentElement
    if (handle === null || handle === undefined || item === null || item === undefined) return
    if (!(list instanceof HTMLElement) || list.dataset["reorder"] === undefined) return
    event.preventDefault()
    handle.setPointerCapture(event.pointerId)
    item.classList.add("dragging")
    drag = { list, item, handle, pointerId: event.pointerId, before: orderOf(list) }
  })

  document.addEventListener("pointermove", (event) => {
    if (drag === undefined || event.pointerId !== drag.pointerId) return
    event.preventDefault()
    follow(drag, event.clientY)
  })

  document.addEventListener("pointerup", (event) => {
    if (drag !== undefined && event.pointerId === drag.pointerId) endDrag(true)
  })
  document.addEventListener("pointercancel", (event) => {
    if (drag !== undefined && event.pointerId === drag.pointerId) endDrag(false)
  })
  // Escape during a drag puts the list back as it was.
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && drag !== undefined) endDrag(false)
  })
}
