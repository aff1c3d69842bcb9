/**
 * The account mail sent when a sign-in method is added to an account or removed from it: what changed, when, from
 * which kind of device when the request said, and what to do if it was not the account's owner.
 */
import {
  type CredentialChangeKind,
  type CredentialMethod,
  type CredentialOrigin,
  methodName
} from "@signalman/core/CredentialEvent"
import * as DeviceKind from "@signalman/core/DeviceKind"
import type { Mail } from "../infra/Mailer.js"

export interface MailInput {
  readonly to: string
  readonly change: CredentialChangeKind
  readonly method: CredentialMethod
  readonly origin: CredentialOrigin
  readonly label: string
  readonly at: Date
  readonly userAgent: string | undefined
  /** The public base URL, for the account page's address. */
  readonly base: string
}

/** "GitHub (alice@example.com)", or "the passkey "Work laptop"". */
const credential = (method: CredentialMethod, label: string): string =>
  method === "passkey" ? `the passkey "${label}"` : `${methodName(method)} (${label})`

const what = (input: MailInput): string => {
  const name = credential(input.method, input.label)
  if (input.change === "removed") return `${capitalise(name)} was removed from your Signalman account.`
  switch (input.origin) {
    case "signup":
      return `Your Signalman account was opened with ${name}.`
    case "email_match":
      return `${capitalise(name)} was linked to your Signalman account: ${methodName(input.method)} confirmed that it uses your address.`
    case "session":
      return `${capitalise(name)} was added to your Signalman account as a way to sign in.`
  }
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1)

// Minutes are enough to recognise a moment; UTC so the mail reads the same wherever it is opened.
const when = (at: Date) => `${at.toISOString().slice(0, 16).replace("T", " ")} UTC`

/** The mail for one change. */
export const compose = (input: MailInput): Mail => {
  const device = DeviceKind.describe(input.userAgent)
  const account = `${input.base}/settings/account`
  const ifNotYou =
    input.change === "added"
      ? [
          "If this was not you, someone else can now sign in to your account. Sign in with your email address,",
          `remove it and sign out of every other session on ${account}.`
        ]
      : [
          "If this was not you, someone is signed in to your account. Sign in with your email address, check your",
          `sign-in methods and sign out of every other session on ${account}.`
        ]
  return {
    to: input.to,
    subject:
      input.change === "added"
        ? `A sign-in method was added to your Signalman account`
        : `A sign-in method was removed from your Signalman account`,
    text: [
      what(input),
      "",
      `When: ${when(input.at)}`,
      ...(device === undefined ? [] : [`Device: ${device}`]),
      ...(input.change === "removed" ? ["", "Every other session of your account was signed out."] : []),
      "",
      "If this was you, there is nothing to do.",
      "",
      ...ifNotYou
    ].join("\n")
  }
}
