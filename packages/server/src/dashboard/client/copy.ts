/**
 * Copy buttons: `<button data-copy="<id>" data-copy-label="Ping URL">` copies the text of the element with that id
 * (a ping URL, a snippet, a share link). With the clipboard API it is copied and said so in the page's live region;
 * where the browser refuses (no permission, not a secure context), the text is selected instead and the person is
 * told to copy it themselves, so the button never silently does nothing.
 */
import { flash } from "./actions.js"

const selectContents = (element: HTMLElement) => {
  const selection = window.getSelection()
  if (selection === null) return
  const range = document.createRange()
  range.selectNodeContents(element)
  selection.removeAllRanges()
  selection.addRange(range)
}

const copy = async (button: HTMLElement) => {
  const source = document.getElementById(button.dataset["copy"] ?? "")
  if (source === null) return
  const what = button.dataset["copyLabel"] ?? "Text"
  const text = source.textContent ?? ""
  try {
    // Absent outside a secure context; rejects without permission or focus.
    if (navigator.clipboard === undefined) throw new Error("no clipboard")
    await navigator.clipboard.writeText(text)
    flash(`${what} copied to the clipboard.`)
  } catch {
    selectContents(source)
    flash(`${what} selected: press Ctrl+C (or ⌘C) to copy it.`)
  }
}

export const install = () => {
  document.addEventListener("click", (event) => {
    const target = event.target
    if (!(target instanceof Element)) return
    const button = target.closest<HTMLElement>("[data-copy]")
    if (button === null) return
    event.preventDefault()
    void copy(button)
  })
}
