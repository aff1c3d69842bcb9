/**
 * A browser flow's steps as an editable list (dashboard/monitors/FlowSteps.ts): add a step from the list's
 * `<template>`, remove one, move one up or down, and show only the fields the chosen action takes (the others are
 * disabled, so they are not sent). After each change the rows are renumbered, so names stay `check.steps[i].<field>`
 * in order and the API's errors keep landing on the right row.
 */
import { touch } from "./touched.js"

const rowsOf = (list: Element): ReadonlyArray<HTMLElement> => [
  ...list.querySelectorAll<HTMLElement>(":scope > [data-step]")
]

/** Renumbers every row: names `check.steps[i]`, ids and references `steps-i-`, and the numbers people read. */
const renumber = (list: Element) => {
  rowsOf(list).forEach((row, i) => {
    for (const node of row.querySelectorAll<HTMLElement>("[name]")) {
      const name = node.getAttribute("name") ?? ""
      node.setAttribute("name", name.replace(/steps\[\d+\]/, `steps[${i}]`))
    }
    for (const attribute of ["id", "for", "aria-describedby"]) {
      for (const node of row.querySelectorAll(`[${attribute}]`)) {
        const value = node.getAttribute(attribute) ?? ""
        node.setAttribute(attribute, value.replace(/steps-\d+-/g, `steps-${i}-`))
      }
    }
    for (const node of row.querySelectorAll("[data-step-number]")) node.textContent = String(i + 1)
  })
}

/** Shows the fields the row's action takes, and disables the rest. */
const showFieldsOf = (row: Element) => {
  const action = row.querySelector<HTMLSelectElement>("select[data-step-action]")?.value ?? ""
  for (const wrapper of row.querySelectorAll<HTMLElement>("[data-actions]")) {
    const shown = (wrapper.dataset["actions"] ?? "").split(" ").includes(action)
    wrapper.hidden = !shown
    for (const field of wrapper.querySelectorAll<HTMLInputElement>("input")) field.disabled = !shown
  }
}

const changed = (list: Element) => {
  renumber(list)
  const form = list.closest("form")
  if (form !== null) touch(form, "check")
}

const add = (button: HTMLElement) => {
  const box = button.closest(".flow-steps")
  const list = box?.querySelector("[data-step-list]")
  const template = box?.querySelector<HTMLTemplateElement>("template[data-step-template]")
  const row = template?.content.firstElementChild?.cloneNode(true)
  if (list == null || !(row instanceof HTMLElement)) return
  list.append(row)
  changed(list)
  row.querySelector<HTMLSelectElement>("select[data-step-action]")?.focus()
}

const remove = (row: HTMLElement, list: Element) => {
  const next = row.nextElementSibling ?? row.previousElementSibling
  row.remove()
  changed(list)
  const focus =
    next?.querySelector<HTMLElement>("select[data-step-action]") ??
    list.closest(".flow-steps")?.querySelector<HTMLElement>("[data-step-add]")
  focus?.focus()
}

const move = (row: HTMLElement, list: Element, by: number, button: HTMLElement) => {
  const sibling = by < 0 ? row.previousElementSibling : row.nextElementSibling
  if (sibling === null) return
  if (by < 0) sibling.before(row)
  else sibling.after(row)
  changed(list)
  button.focus()
}

export const install = () => {
  document.addEventListener("click", (event) => {
    const target = event.target
    if (!(target instanceof Element)) return
    const button = target.closest<HTMLElement>("[data-step-add], [data-step-remove], [data-step-move]")
    if (button === null) return
    if (button.dataset["stepAdd"] !== undefined) {
      add(button)
      return
    }
    const row = button.closest<HTMLElement>("[data-step]")
    const list = row?.parentElement
    if (row == null || list == null) return
    if (button.dataset["stepRemove"] !== undefined) remove(row, list)
    else move(row, list, Number(button.dataset["stepMove"]), button)
  })
  document.addEventListener("change", (event) => {
    const target = event.target
    if (target instanceof HTMLSelectElement && target.dataset["stepAction"] !== undefined) {
      const row = target.closest("[data-step]")
      if (row !== null) showFieldsOf(row)
    }
  })
}
