/**
 * The nine kinds of monitor as the editor offers them: in the order people reach for them, each with its name and
 * one line on what it checks (service-api.md "CheckSpec kinds"), and whether it is probed (heartbeat and manual
 * monitors are not: they take no regions and have nothing to test).
 */
import { CheckKind } from "@signalman/core/CheckSpec"
import * as Schema from "effect/Schema"

export interface KindInfo {
  readonly kind: CheckKind
  readonly label: string
  /** What a monitor of this kind checks, in one line. */
  readonly summary: string
}

export const kinds: ReadonlyArray<KindInfo> = [
  {
    kind: "http",
    label: "HTTP",
    summary: "Requests a URL and expects a status code and, optionally, a text in the body."
  },
  { kind: "tcp", label: "TCP port", summary: "Opens a TCP connection to a host and port." },
  { kind: "ping", label: "Ping", summary: "Sends an ICMP echo to a host and waits for the reply." },
  {
    kind: "dns",
    label: "DNS record",
    summary: "Queries a record and expects an answer, a value in it, or an exact set of records."
  },
  {
    kind: "tls_cert",
    label: "TLS certificate",
    summary: "Reads a server's certificate and warns before it expires."
  },
  {
    kind: "domain_expiry",
    label: "Domain expiry",
    summary: "Reads a domain's registration over RDAP and warns before it expires."
  },
  {
    kind: "flow",
    label: "Browser flow",
    summary: "Runs steps in a headless browser (go to, fill, click, wait) and asserts a text or the URL."
  },
  {
    kind: "heartbeat",
    label: "Heartbeat",
    summary: "Waits for your job to ping a URL; down when no ping arrives within its period and grace."
  },
  { kind: "manual", label: "Manual", summary: "No probe: a person sets its state by hand." }
]

/** The kind's entry (every kind has one). */
export const info = (kind: CheckKind): KindInfo =>
  kinds.find((k) => k.kind === kind) ?? { kind, label: kind, summary: "" }

/** Whether the kind runs on a probe: heartbeat and manual monitors are evaluated by the service itself. */
export const probed = (kind: CheckKind): boolean => kind !== "heartbeat" && kind !== "manual"

/** The kind a query names, if it names one. */
export const parse = (value: string | undefined): CheckKind | undefined =>
  Schema.is(CheckKind)(value) ? value : undefined
