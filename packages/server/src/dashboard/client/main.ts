/**
 * The dashboard's script: progressive enhancement over server-rendered pages. Every page reads without it; with it,
 * forms and action buttons write through the JSON API (see forms.ts, actions.ts) and marked parts of the page update
 * live. Each feature installs itself once here.
 */
import * as Actions from "./actions.js"
import * as Copy from "./copy.js"
import * as Editor from "./editor.js"
import * as Forms from "./forms.js"
import * as Live from "./live.js"
import * as OnCall from "./oncall.js"
import * as Overview from "./overview.js"
import * as Passkeys from "./passkeys.js"
import * as Settings from "./settings.js"
import * as StatusPages from "./statuspages.js"
import * as Times from "./times.js"

document.documentElement.classList.add("js")
Forms.install()
Actions.install()
StatusPages.install()
Editor.install()
Times.install()
Settings.install()
Passkeys.install()
Copy.install()
Overview.install()
Live.install()
OnCall.install()
