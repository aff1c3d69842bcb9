/**
 * The fields of one kind of check, in a `<fieldset>` of their own, each named by its path in the API's body
 * (`check.url`, `check.warn_days`) with the value the draft holds: a new monitor's defaults or a stored monitor's.
 * Fields where the API resolves `{{key}}` references are marked `data-variables` (`secret` where a secret variable
 * may go: a header value, the body, a fill value), for the variables picker. A stored credential (`basic_auth`,
 * `bearer_token`) is never shown: its field opens empty, marked `data-stored-secret`, with a box to remove it.
 */
import { DnsRecordType, HttpMethod } from "@signalman/core/CheckSpec"
import { type Html, html } from "../Template.js"
import { type CheckDraft, expectedStatusText, headersText, isRedacted } from "./EditorValues.js"
import { checkbox, idOf, input, select, textarea } from "./Fields.js"
import { flowSteps } from "./FlowSteps.js"
import * as Kinds from "./Kinds.js"

const ipVersions = [
  { value: "any", label: "Any (IPv6 and IPv4 raced)" },
  { value: "ipv4", label: "IPv4 only" },
  { value: "ipv6", label: "IPv6 only" }
]

const ipVersion = (value: string | undefined) =>
  select({ name: "check.ip_version", label: "IP version", value, choices: ipVersions })

const timeout = (value: number | undefined, hint: string) =>
  input({
    name: "check.timeout",
    label: "Timeout (seconds)",
    type: "number",
    value,
    hint,
    attrs: { step: "any", min: 0 }
  })

const host = (value: string | undefined, hint?: string) =>
  input({
    name: "check.host",
    label: "Host",
    value,
    attrs: { required: true },
    ...(hint === undefined ? {} : { hint })
  })

const domain = (value: string | undefined, hint: string) =>
  input({ name: "check.domain", label: "Domain", value, hint, attrs: { required: true } })

const days = (warn: number | undefined, critical: number | undefined) => html`${input({
  name: "check.warn_days",
  label: "Warn when fewer days remain than",
  type: "number",
  value: warn,
  hint: "Degraded below this many days; must be greater than the critical days.",
  attrs: { min: 0, max: 365 }
})}
${input({
  name: "check.critical_days",
  label: "Down when fewer days remain than",
  type: "number",
  value: critical,
  attrs: { min: 0, max: 365 }
})}`

/** A credential that may be stored: shown empty, with a box to remove the stored one. */
const storedNote = (what: string) => `A ${what} is stored and never shown. It is kept while you change only other
sections; a changed check is saved whole, so enter it again (or remove it) when you change this check.`

const removeBox = (group: string, label: string) => {
  const id = idOf(`clear.${group}`)
  // Not named: it is no field of the body, only what monitorBody reads to let a stored credential go.
  return html`<div class="field">
<label class="inline" for="${id}"><input type="checkbox" id="${id}" data-clears="${group}"> ${label}</label>
</div>`
}

const httpFields = (check: Extract<CheckDraft, { type: "http" }>): Html => {
  const basicStored = isRedacted(check.basic_auth)
  const basic = typeof check.basic_auth === "object" && check.basic_auth !== null ? check.basic_auth : undefined
  const bearerStored = isRedacted(check.bearer_token)
  return html`${input({
    name: "check.url",
    label: "URL",
    value: check.url,
    hint: "May hold {{key}} references to your variables (not secret ones).",
    attrs: { required: true, "data-variables": "plain", inputmode: "url", autocomplete: "off" }
  })}
${select({ name: "check.method", label: "Method", value: check.method, choices: HttpMethod.literals.map((m) => ({ value: m, label: m })) })}
${textarea({
  name: "check.headers",
  label: "Headers",
  value: headersText(check.headers),
  hint: "One per line, as Name: value. Values may hold {{key}} references, secret ones included.",
  attrs: { "data-variables": "secret", spellcheck: false }
})}
${textarea({
  name: "check.body",
  label: "Request body",
  value: check.body,
  hint: "Sent as written; may hold {{key}} references, secret ones included.",
  attrs: { "data-variables": "secret", spellcheck: false }
})}
${input({
  name: "check.expected_status",
  label: "Expected status",
  value: expectedStatusText(check.expected_status),
  hint: "A code (200), a list (200, 204), a class (2xx) or a range (200-399)."
})}
${input({
  name: "check.expected_body_contains",
  label: "Body must contain",
  value: check.expected_body_contains,
  hint: "Optional; may hold {{key}} references (not secret ones).",
  attrs: { "data-variables": "plain" }
})}
${checkbox({ name: "check.follow_redirects", label: "Follow redirects (at most 10)", checked: check.follow_redirects ?? true })}
${checkbox({ name: "check.verify_tls", label: "Verify the TLS certificate", checked: check.verify_tls ?? true })}
<fieldset class="field" data-field="check.basic_auth" tabindex="-1">
<legend>Basic authentication</legend>
${input({
  name: "check.basic_auth.username",
  label: "Username",
  value: basic?.username,
  attrs: { autocomplete: "off", "data-stored-secret": basicStored ? "check.basic_auth" : undefined }
})}
${input({
  name: "check.basic_auth.password",
  label: "Password",
  type: "password",
  value: basic?.password,
  hint: basicStored ? storedNote("username and password") : "Optional; both sent as Authorization: Basic.",
  attrs: { autocomplete: "off", "data-stored-secret": basicStored ? "check.basic_auth" : undefined }
})}
${basicStored && removeBox("check.basic_auth", "Remove the stored username and password")}
</fieldset>
${input({
  name: "check.bearer_token",
  label: "Bearer token",
  type: "password",
  value: bearerStored ? "" : check.bearer_token,
  hint: bearerStored ? storedNote("token") : "Optional; sent as Authorization: Bearer.",
  attrs: { autocomplete: "off", "data-stored-secret": bearerStored ? "check.bearer_token" : undefined }
})}
${bearerStored && removeBox("check.bearer_token", "Remove the stored token")}
${timeout(check.timeout, "How long to wait for the answer; at most 60.")}
${ipVersion(check.ip_version)}`
}

const checkFields = (check: CheckDraft): Html => {
  switch (check.type) {
    case "http":
      return httpFields(check)
    case "tcp":
      return html`${host(check.host)}
${input({ name: "check.port", label: "Port", type: "number", value: check.port, attrs: { required: true, min: 1, max: 65535 } })}
${timeout(check.timeout, "How long to wait for the connection; at most 60.")}
${ipVersion(check.ip_version)}`
    case "ping":
      return html`${host(check.host)}
${timeout(check.timeout, "How long to wait for the echo reply; at most 60.")}`
    case "dns":
      return html`${domain(check.domain, "A leftmost * queries the wildcard record itself; for PTR, an address or its reverse name.")}
${select({
  name: "check.record_type",
  label: "Record type",
  value: check.record_type,
  choices: DnsRecordType.literals.map((t) => ({ value: t, label: t }))
})}
${input({
  name: "check.resolver",
  label: "Resolver",
  value: check.resolver,
  hint: "Optional: ip or ip:port of the server to ask instead of the default one."
})}
${input({
  name: "check.expected_contains",
  label: "An answer must contain",
  value: check.expected_contains,
  hint: "Optional; leave empty when you list the exact records below."
})}
${textarea({
  name: "check.expected_records",
  label: "Exact records",
  value: (check.expected_records ?? []).join("\n"),
  hint: "Optional, one value per line (at most 50): down when the answer differs in any way.",
  attrs: { "data-type": "lines", spellcheck: false }
})}
${timeout(check.timeout, "How long to wait for the answer; at most 60.")}`
    case "tls_cert":
      return html`${host(check.host)}
${input({ name: "check.port", label: "Port", type: "number", value: check.port, attrs: { min: 1, max: 65535 } })}
${input({
  name: "check.server_name",
  label: "Server name",
  value: check.server_name,
  hint: "Optional: the name sent in the handshake (SNI), when it is not the host."
})}
${days(check.warn_days, check.critical_days)}
${timeout(check.timeout, "How long to wait for the handshake; at most 60.")}
${ipVersion(check.ip_version)}`
    case "domain_expiry":
      return html`${domain(check.domain, "The registered domain, such as example.com.")}
${days(check.warn_days, check.critical_days)}`
    case "flow":
      return html`${input({
        name: "check.start_url",
        label: "Start URL",
        value: check.start_url,
        hint: "Where the browser starts.",
        attrs: { required: true, inputmode: "url", autocomplete: "off" }
      })}
${flowSteps(check.steps ?? [])}
${input({
  name: "check.timeout",
  label: "Timeout for the whole run (seconds)",
  type: "number",
  value: check.timeout,
  hint: "At most 120.",
  attrs: { step: "any", min: 0, max: 120 }
})}
${input({
  name: "check.step_timeout",
  label: "Timeout for each step's wait (seconds)",
  type: "number",
  value: check.step_timeout,
  hint: "At most 60.",
  attrs: { step: "any", min: 0, max: 60 }
})}
${checkbox({ name: "check.verify_tls", label: "Verify TLS certificates", checked: check.verify_tls ?? true })}`
    case "heartbeat":
      return html`${input({
        name: "check.period",
        label: "Period (seconds)",
        type: "number",
        value: check.period,
        hint: "How often your job pings: from 60 (a minute) to 2592000 (30 days).",
        attrs: { required: true, min: 60, max: 2592000 }
      })}
${input({
  name: "check.grace",
  label: "Grace (seconds)",
  type: "number",
  value: check.grace,
  hint: "How late a ping may be before the monitor is down: up to 30 days.",
  attrs: { required: true, min: 0, max: 2592000 }
})}
${input({
  name: "check.max_runtime",
  label: "Longest run (seconds)",
  type: "number",
  value: check.max_runtime,
  hint: "Optional: down when a run started with /start has not finished within this (60 s to 30 days).",
  attrs: { min: 60, max: 2592000 }
})}
<p class="note">The ping URL your job calls is made when the monitor is first saved, and shown on its page.</p>`
    case "manual":
      return html`<p>A manual monitor runs no check: its state (up, degraded or down) is set by hand on its page.</p>`
  }
}

/** The kind's fieldset: its type (sent as `check.type`, named for errors about the kind) and its fields. */
export const kindFieldset = (check: CheckDraft): Html => {
  const kind = Kinds.info(check.type)
  return html`<fieldset class="kind-fields" data-kind="${check.type}">
<legend>${kind.label} check</legend>
<input type="hidden" name="check.type" value="${check.type}">
<p class="note" data-field="check.type" tabindex="-1">${kind.summary}</p>
${checkFields(check)}
</fieldset>`
}
