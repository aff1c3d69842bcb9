/**
 * `pnpm --dir examples/split-deployment start`: the split deployment on this machine, started in the order a real
 * one comes up, and left running in the background (stop it with `stop`):
 *
 * 1. the database (`SPLIT_DATABASE_URL`; created when missing);
 * 2. api-1 alone, so a fresh database is migrated by one process; then api-2, worker-1 and worker-2 together;
 *    each is ready when its `/readyz` answers 200;
 * 3. the balancer in front of the two apis, ready when `/readyz` answers 200 through it;
 * 4. the probe region and two agents registered through the operator surface (through the balancer), and the two
 *    agents started against the balancer, ready when each logs `Connected`.
 *
 * The processes get the settings a real split deployment needs (docs/deployment.md) over whatever the caller's
 * environment sets; the environment is passed on, so any other setting (`MAIL__SMTP_URL`,
 * `CHECKER__ALLOW_PRIVATE_TARGETS`, ...) reaches every process. Should any step fail, what was started is stopped.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as Database from "../Database.js"
import {
  agentDir,
  agentMain,
  balancerMain,
  exampleDir,
  HOST,
  logPath,
  type Member,
  members,
  REGION,
  serverDir,
  serverMain,
  stateDir
} from "../Layout.js"
import * as Operator from "../Operator.js"
import * as Ports from "../Ports.js"
import * as Processes from "../Processes.js"
import * as RunState from "../RunState.js"
import * as Secrets from "../Secrets.js"

const READY_TIMEOUT_MS = 180_000
const env = process.env
const dir = stateDir(env)

const say = (line: string) => process.stdout.write(`${line}\n`)

const main = async () => {
  const previous = RunState.read(dir)
  const running = previous?.processes.filter((p) => Processes.alive(p.pid)) ?? []
  if (running.length > 0) {
    throw new Error(
      `already running (${running.map((p) => `${p.name} pid ${p.pid}`).join(", ")}); stop it first: pnpm --dir examples/split-deployment stop`
    )
  }
  fs.rmSync(path.join(dir, "logs"), { recursive: true, force: true })

  const databaseUrl = Database.url(env)
  const created = await Database.ensure(databaseUrl)
  say(`database ${RunState.withoutPassword(databaseUrl)} ${created ? "created" : "exists"}`)
  const secrets = Secrets.loadOrMake(dir)
  const ports = await Ports.choose(env)
  const layout = members(ports)
  const balancer = layout.find((m) => m.role === "balancer")
  const balancerUrl = `http://${HOST}:${balancer?.port}`

  const state: { -readonly [K in keyof RunState.RunState]: RunState.RunState[K] } & {
    processes: Array<RunState.Process>
  } = {
    started_at: new Date().toISOString(),
    balancer_url: balancerUrl,
    database: RunState.withoutPassword(databaseUrl),
    region: REGION.id,
    processes: []
  }
  const record = (member: Member, started: Processes.Started) => {
    state.processes.push({
      name: member.name,
      role: member.role,
      pid: started.pid,
      url: member.port === null ? null : `http://${HOST}:${member.port}`,
      log: started.log
    })
    RunState.write(dir, state)
  }

  // Defaults of the example, then the caller's environment, then what the topology requires (dotted spellings,
  // which win over the aliases DATABASE_URL, PORT and HOST should the caller's environment hold those).
  const serverEnv = (member: Member): NodeJS.ProcessEnv => ({
    LOG__LEVEL: "info",
    METRICS__ENABLED: "true",
    CHECKER__BROWSER_PATH: "none",
    // An api stopping stays in service (its /readyz 503) until the balancer's health check (every second) has
    // taken it out of rotation, then stops listening: no request is cut at the close.
    ...(member.role === "api" ? { SERVER__DRAIN_DELAY_SECS: "3" } : {}),
    ...env,
    DATABASE__URL: databaseUrl,
    SERVER__HOST: HOST,
    SERVER__PORT: String(member.port),
    SERVER__TRUSTED_PROXIES: HOST,
    AUTH__PUBLIC_BASE_URL: balancerUrl,
    SECRETS__ENCRYPTION_KEY: secrets.encryption_key,
    AUTH__FINGERPRINT_SALT: secrets.fingerprint_salt,
    OPERATOR__ADMIN_TOKEN: secrets.admin_token,
    METRICS__TOKEN: secrets.metrics_token
  })

  const startServer = (member: Member) => {
    const started = Processes.start({
      main: serverMain,
      args: ["--role", member.role],
      cwd: serverDir,
      env: serverEnv(member),
      log: logPath(dir, member.name)
    })
    record(member, started)
    say(`${member.name} (--role ${member.role}) pid ${started.pid}, port ${member.port}`)
    return Processes.waitUntil(
      member.name,
      started,
      () => Processes.answers200(`http://${HOST}:${member.port}/readyz`),
      READY_TIMEOUT_MS
    )
  }

  try {
    const servers = layout.filter((m) => m.role === "api" || m.role === "worker")
    const [first, ...rest] = servers
    if (first === undefined || balancer === undefined) throw new Error("the layout has no api or no balancer")
    await startServer(first)
    await Promise.all(rest.map(startServer))

    const apis = servers.filter((m) => m.role === "api").map((m) => `${HOST}:${m.port}`)
    const started = Processes.start({
      main: balancerMain,
      args: [],
      cwd: exampleDir,
      env: { ...env, SPLIT_BALANCER_LISTEN: `${HOST}:${balancer.port}`, SPLIT_UPSTREAMS: apis.join(",") },
      log: logPath(dir, balancer.name)
    })
    record(balancer, started)
    say(`balancer pid ${started.pid}, ${balancerUrl} -> ${apis.join(", ")}`)
    await Processes.waitUntil(
      "balancer",
      started,
      () => Processes.answers200(`${balancerUrl}/readyz`),
      READY_TIMEOUT_MS
    )

    const tokens = await Operator.register(balancerUrl, secrets.admin_token, secrets.agents)
    Secrets.save(dir, { ...secrets, agents: tokens })
    await Promise.all(
      layout
        .filter((m) => m.role === "agent")
        .map((member) => {
          const token = tokens.find((t) => t.name === member.name)
          if (token === undefined) throw new Error(`no token for ${member.name}`)
          const agent = Processes.start({
            main: agentMain,
            args: [],
            cwd: agentDir,
            env: {
              AGENT__BROWSER_PATH: "none",
              ...env,
              SIGNALMAN_URL: balancerUrl,
              SIGNALMAN_AGENT_TOKEN: token.token
            },
            log: logPath(dir, member.name)
          })
          record(member, agent)
          say(`${member.name} (region ${REGION.id}) pid ${agent.pid}`)
          return Processes.waitUntil(
            member.name,
            agent,
            async () => Processes.logged(agent.log, "Connected"),
            READY_TIMEOUT_MS
          )
        })
    )
  } catch (error) {
    say(`start failed: ${error instanceof Error ? error.message : String(error)}`)
    say("stopping what was started")
    for (const p of [...state.processes].reverse()) await Processes.stop(p.pid, 30_000)
    RunState.remove(dir)
    process.exit(1)
  }

  const logs = (name: string) => RunState.relative(dir, path.join("logs", `${name}.log`))
  say("")
  say("Signalman split deployment is up.")
  say("")
  say(`  Service, through the balancer:  ${balancerUrl}`)
  say(`  Sign in:   open ${balancerUrl}/login and ask for a link with any address.`)
  say(
    env["MAIL__SMTP_URL"] === undefined
      ? `             No MAIL__SMTP_URL: the mail (link and code) is in the log of the api that sent it:\n             grep -h '"Mail to' ${logs("api-*")} | tail -1`
      : `             The mail goes through ${env["MAIL__SMTP_URL"]}.`
  )
  say(`  Operator:  curl -H 'Authorization: Bearer ${secrets.admin_token}' ${balancerUrl}/operator/agents`)
  say(`  Metrics:   each process's /metrics with 'Authorization: Bearer ${secrets.metrics_token}'`)
  say(`  Agents:    region ${REGION.id}: monitors with "regions": ["${REGION.id}"] run on the two agents`)
  say(`  Database:  ${state.database}`)
  say("  Processes:")
  for (const p of state.processes) {
    say(
      `    ${p.name.padEnd(14)} pid ${String(p.pid).padEnd(8)} ${(p.url ?? "(dials out)").padEnd(24)} ${logs(p.name)}`
    )
  }
  say(
    `  State:     ${RunState.relative(dir, "state.json")} (pids), secrets in ${RunState.relative(dir, "secrets.json")}`
  )
  say("  Stop:      pnpm --dir examples/split-deployment stop")
}

main().catch((error: unknown) => {
  say(`start failed: ${error instanceof Error ? error.message : String(error)}`)
  process.exit(1)
})
