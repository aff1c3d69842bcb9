/**
 * The status pages' screens beyond forms and buttons: the components' order (drag or move buttons, saved at once),
 * the branding preview that follows its inputs, and logo uploads.
 */
import * as Branding from "./branding.js"
import * as Logo from "./logo.js"
import * as Reorder from "./reorder.js"

export const install = () => {
  Reorder.install()
  Branding.install()
  Logo.install()
}
