/**
 * The user behind the authenticated measurement of `bench/run.ts` (`GET /api/v1/me` with a bearer API token),
 * made the way a person would make one, through Signalman's public and operator endpoints only:
 *
 * 1. `POST /auth/magic-link/request` mails a code (to the SMTP catcher below) and sets the `_sm_ml_code` cookie;
 * 2. `POST /auth/magic-link/code` with that code and cookie signs in (`_sm_session`);
 * 3. `POST /api/v1/me/api-tokens` with the session mints a `full_access` token;
 * 4. the operator surface (`OPERATOR__ADMIN_TOKEN`) raises the account's `api_reads_per_minute`, which the free plan
 *    caps at 6000, far below what the benchmark sends: without it most answers would be 429 `RATE_LIMITED`.
 *
 * Every step checks its answer and throws with the status and body when it is not the documented one, so a broken
 * sign-in fails the run before anything is measured.
 */
import { simpleParser } from "mailparser"
import { SMTPServer } from "smtp-server"

const STEP_TIMEOUT_MS = 10_000
// Mail goes out after the request's transaction commits, through nodemailer: seconds at worst on a busy machine.
const MAIL_TIMEOUT_MS = 15_000
const MAIL_POLL_MS = 50
const CODE_COOKIE = "_sm_ml_code"
const SESSION_COOKIE = "_sm_session"
const CODE_LINE = /Or type this code in the browser where you asked for it: ([0-9A-Z]{6})/
/** The per-minute read budget given to the bench account: well beyond what one machine can send in a minute. */
export const READS_PER_MINUTE = 1_000_000_000

// ---------------------------------------------------------------------------------------------------------------
// SMTP catcher (mirrors test/support/SmtpCatcher.ts, without Effect: the runner is plain promises)

export interface CaughtMail {
  readonly to: string
  readonly subject: string
  readonly text: string
}

export interface SmtpCatcher {
  /** `smtp://127.0.0.1:<port>`, for Signalman's `MAIL__SMTP_URL`. */
  readonly url: string
  /** The mails to an address, waiting (bounded) until at least one arrived; empty when none did in time. */
  readonly waitFor: (to: string) => Promise<ReadonlyArray<CaughtMail>>
  readonly close: () => Promise<void>
}

/** A real SMTP server on loopback that keeps every mail it receives, parsed. */
export const startSmtpCatcher = async (host: string): Promise<SmtpCatcher> => {
  const caught: Array<CaughtMail> = []
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          for (const rcpt of session.envelope.rcptTo) {
            caught.push({ to: rcpt.address.toLowerCase(), subject: parsed.subject ?? "", text: parsed.text ?? "" })
          }
          callback()
        })
        .catch((error: Error) => callback(error))
    }
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, host, () => resolve())
  })
  const address = server.server.address()
  if (address === null || typeof address === "string") throw new Error("smtp catcher: no TCP address")
  const forAddress = (to: string) => caught.filter((mail) => mail.to === to.toLowerCase())
  return {
    url: `smtp://${host}:${address.port}`,
    waitFor: async (to) => {
      const until = Date.now() + MAIL_TIMEOUT_MS
      while (forAddress(to).length === 0 && Date.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, MAIL_POLL_MS))
      }
      return forAddress(to)
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

// ---------------------------------------------------------------------------------------------------------------
// HTTP steps

interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly text: string
}

const call = async (
  origin: string,
  method: "GET" | "POST" | "PUT",
  path: string,
  options: { readonly headers?: Readonly<Record<string, string>>; readonly json?: unknown } = {}
): Promise<Answer> => {
  const headers: Record<string, string> = { ...options.headers }
  if (options.json !== undefined) headers["content-type"] = "application/json"
  const response = await fetch(`${origin}${path}`, {
    method,
    headers,
    ...(options.json === undefined ? {} : { body: JSON.stringify(options.json) }),
    signal: AbortSignal.timeout(STEP_TIMEOUT_MS)
  })
  return { status: response.status, headers: response.headers, text: await response.text() }
}

const expectStatus = (step: string, answer: Answer, status: number): void => {
  if (answer.status !== status) {
    throw new Error(`bench user: ${step} answered ${answer.status}, expected ${status}: ${answer.text.slice(0, 500)}`)
  }
}

const parseObject = (step: string, text: string): Record<string, unknown> => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw new Error(`bench user: ${step} did not answer JSON: ${text.slice(0, 500)}`)
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new Error(`bench user: ${step} did not answer a JSON object: ${text.slice(0, 500)}`)
  }
  return { ...parsed }
}

const stringField = (step: string, object: Record<string, unknown>, key: string): string => {
  const value = object[key]
  if (typeof value !== "string" || value === "") {
    throw new Error(`bench user: ${step} answered no ${key}: ${JSON.stringify(object).slice(0, 500)}`)
  }
  return value
}

/** The value of a cookie the answer sets, or a thrown error naming the step. */
const setCookie = (step: string, answer: Answer, name: string): string => {
  for (const header of answer.headers.getSetCookie()) {
    const [pair] = header.split(";")
    const eq = pair?.indexOf("=") ?? -1
    if (pair !== undefined && eq > 0 && pair.slice(0, eq).trim() === name) {
      const value = pair.slice(eq + 1).trim()
      if (value !== "") return value
    }
  }
  throw new Error(`bench user: ${step} set no ${name} cookie`)
}

export interface BenchUser {
  readonly email: string
  readonly accountId: string
  /** The `sm_live_` secret; never written to the report. */
  readonly token: string
  /** The first characters of the token, as Signalman lists them: enough to recognise it, useless to use it. */
  readonly tokenPrefix: string
  /** The `_sm_session` cookie's value, for what a browser reads (the dashboard); never written to the report. */
  readonly session: string
}

/**
 * Signs `email` up by magic link, mints a `full_access` API token and raises the account's read budget. The
 * catcher must be the server's `MAIL__SMTP_URL`, and the server must run with `OPERATOR__ADMIN_TOKEN=adminToken`
 * and `AUTH__MAGIC_LINK__RATE_LIMIT_SECONDS=0`.
 */
export const makeBenchUser = async (
  origin: string,
  catcher: SmtpCatcher,
  adminToken: string,
  email: string
): Promise<BenchUser> => {
  const requested = await call(origin, "POST", "/auth/magic-link/request", { json: { email } })
  expectStatus("POST /auth/magic-link/request", requested, 200)
  const browser = setCookie("POST /auth/magic-link/request", requested, CODE_COOKIE)

  const mails = await catcher.waitFor(email)
  const text = mails.at(-1)?.text
  if (text === undefined) throw new Error(`bench user: no mail reached ${email} within ${MAIL_TIMEOUT_MS} ms`)
  const code = CODE_LINE.exec(text)?.[1]
  if (code === undefined) throw new Error(`bench user: the mail to ${email} holds no code:\n${text}`)

  const redeemed = await call(origin, "POST", "/auth/magic-link/code", {
    json: { code },
    headers: { cookie: `${CODE_COOKIE}=${browser}` }
  })
  expectStatus("POST /auth/magic-link/code", redeemed, 200)
  const session = setCookie("POST /auth/magic-link/code", redeemed, SESSION_COOKIE)

  const minted = await call(origin, "POST", "/api/v1/me/api-tokens", {
    json: { name: "bench", scopes: ["full_access"] },
    headers: { cookie: `${SESSION_COOKIE}=${session}`, "x-requested-with": "signalman" }
  })
  expectStatus("POST /api/v1/me/api-tokens", minted, 201)
  const mintedBody = parseObject("POST /api/v1/me/api-tokens", minted.text)
  const token = stringField("POST /api/v1/me/api-tokens", mintedBody, "token")
  const tokenPrefix = stringField("POST /api/v1/me/api-tokens", mintedBody, "prefix")

  const operator = { authorization: `Bearer ${adminToken}` }
  const findStep = "GET /operator/accounts?email="
  const found = await call(origin, "GET", `/operator/accounts?email=${encodeURIComponent(email)}`, {
    headers: operator
  })
  expectStatus(findStep, found, 200)
  const data = parseObject(findStep, found.text)["data"]
  const first: unknown = Array.isArray(data) && data.length === 1 ? data[0] : undefined
  if (typeof first !== "object" || first === null) {
    throw new Error(`bench user: ${findStep} did not find exactly one account: ${found.text.slice(0, 500)}`)
  }
  const accountId = stringField(findStep, { ...first }, "id")

  const overrideStep = "PUT /operator/accounts/:id/overrides"
  const overridden = await call(origin, "PUT", `/operator/accounts/${encodeURIComponent(accountId)}/overrides`, {
    json: { api_reads_per_minute: READS_PER_MINUTE },
    headers: operator
  })
  expectStatus(overrideStep, overridden, 200)
  const overrides = parseObject(overrideStep, overridden.text)["overrides"]
  const applied =
    typeof overrides === "object" && overrides !== null && "api_reads_per_minute" in overrides
      ? overrides.api_reads_per_minute
      : undefined
  if (applied !== READS_PER_MINUTE) {
    throw new Error(`bench user: ${overrideStep} did not keep the override: ${overridden.text.slice(0, 500)}`)
  }

  return { email, accountId, token, tokenPrefix, session }
}
