/**
 * The account page's passkeys (settings/AccountPasskeys.ts): the add form runs the registration ceremony with the
 * name typed, then reloads to list the new passkey; where the page cannot use passkeys (no WebAuthn, not a secure
 * context) the form is replaced by a note saying why. Removing is an ordinary action button (actions.ts).
 */
import { flash } from "./actions.js"
import * as WebAuthn from "./webauthn.js"

export const install = () => {
  const form = document.querySelector<HTMLFormElement>("form[data-passkey-add]")
  if (form === null) return
  if (!WebAuthn.available()) {
    form.hidden = true
    const note = document.getElementById("passkey-unavailable")
    if (note !== null) {
      note.hidden = false
      if (window.isSecureContext) note.textContent = "This browser cannot use passkeys."
    }
    return
  }
  form.addEventListener("submit", (event) => {
    event.preventDefault()
    const input = form.querySelector<HTMLInputElement>("input[name=name]")
    const button = form.querySelector<HTMLButtonElement>("button[type=submit]")
    void (async () => {
      if (button !== null) button.disabled = true
      form.setAttribute("aria-busy", "true")
      const outcome = await WebAuthn.register(input?.value ?? "")
      if (button !== null) button.disabled = false
      form.removeAttribute("aria-busy")
      if (!outcome.ok) {
        flash(outcome.message, "error")
        return
      }
      window.location.reload()
    })()
  })
}
