/**
 * The login page's one script: the passkey button (login/Pages.ts renders it hidden; shown here when the browser can
 * use a passkey). The ceremony carries the invitation and redirect_after the page was opened with, then follows
 * the server's redirect. Where passkeys cannot work (no WebAuthn, or a page that is not a secure context) it says
 * so instead. The rest of the page works without script.
 */
import * as WebAuthn from "./webauthn.js"

const install = () => {
  const section = document.getElementById("passkey-sign-in")
  const button = document.getElementById("passkey-button")
  const status = document.getElementById("passkey-status")
  if (section === null || !(button instanceof HTMLButtonElement) || status === null) return
  section.hidden = false
  if (!WebAuthn.available()) {
    button.hidden = true
    status.textContent = window.isSecureContext
      ? "This browser cannot use passkeys."
      : "Passkeys need a secure connection (https, or localhost on your own machine). Use the emailed link instead."
    return
  }
  button.addEventListener("click", () => {
    void (async () => {
      button.disabled = true
      button.setAttribute("aria-busy", "true")
      status.textContent = "Waiting for your passkey…"
      const invitation = button.dataset["invitation"]
      const redirectAfter = button.dataset["redirectAfter"]
      const outcome = await WebAuthn.signIn({
        ...(invitation === undefined ? {} : { invitation }),
        ...(redirectAfter === undefined ? {} : { redirect_after: redirectAfter })
      })
      button.disabled = false
      button.removeAttribute("aria-busy")
      if (!outcome.ok) {
        status.textContent = outcome.message
        return
      }
      const body = outcome.body
      const redirect =
        typeof body === "object" && body !== null && "redirect" in body && typeof body.redirect === "string"
          ? body.redirect
          : "/"
      status.textContent = "Signed in."
      window.location.assign(redirect)
    })()
  })
}

install()
