/**
 * The deployment this example runs, as a table: which processes, in which role, on which port, and where each
 * one's log and the run's state are kept. Everything the launcher, the stop command and the balancer agree on.
 */
import * as path from "node:path"
import { fileURLToPath } from "node:url"

/** The example's folder, and the repository's root two levels up. */
export const exampleDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
export const repoDir = path.resolve(exampleDir, "../..")

/** The server's and the agent's entry points, run from source through tsx (as `pnpm start` and `pnpm agent` do). */
export const serverDir = path.join(repoDir, "packages/server")
export const serverMain = path.join(serverDir, "src/main.ts")
export const agentDir = path.join(repoDir, "packages/agent")
export const agentMain = path.join(agentDir, "src/bin.ts")
export const balancerMain = path.join(exampleDir, "src/bin/balancer.ts")

export type Role = "api" | "worker" | "balancer" | "agent"

/** One process of the deployment. `port` is null for agents: they only dial out. */
export interface Member {
  readonly name: string
  readonly role: Role
  readonly port: number | null
}

/** The probe region the two agents serve (a remote region, though both agents run on this machine). */
export const REGION = { id: "split-local", name: "Split example (agents on this machine)" } as const

/** The agents' names, one token each, minted through the operator surface. */
export const AGENTS = ["split-agent-1", "split-agent-2"] as const

/** The loopback address every process listens on; the balancer connects to the apis from it too. */
export const HOST = "127.0.0.1"

/**
 * The processes in start order: the apis, the workers, the balancer in front of the apis, and the agents behind
 * it. `ports` are the balancer's, then one per server process (api-1, api-2, worker-1, worker-2).
 */
export const members = (ports: ReadonlyArray<number>): ReadonlyArray<Member> => {
  const port = (i: number) => {
    const p = ports[i]
    if (p === undefined) throw new Error(`no port for process ${i}`)
    return p
  }
  return [
    { name: "api-1", role: "api", port: port(1) },
    { name: "api-2", role: "api", port: port(2) },
    { name: "worker-1", role: "worker", port: port(3) },
    { name: "worker-2", role: "worker", port: port(4) },
    { name: "balancer", role: "balancer", port: port(0) },
    ...AGENTS.map((name): Member => ({ name, role: "agent", port: null }))
  ]
}

/** How many ports the deployment listens on: the balancer and four server processes. */
export const PORTS = 5

/** Where a run keeps its state: `SPLIT_STATE_DIR`, else `.run/` in the example (git-ignored). */
export const stateDir = (env: NodeJS.ProcessEnv): string =>
  path.resolve(env["SPLIT_STATE_DIR"] ?? path.join(exampleDir, ".run"))

export const statePath = (dir: string) => path.join(dir, "state.json")
export const secretsPath = (dir: string) => path.join(dir, "secrets.json")
export const logPath = (dir: string, name: string) => path.join(dir, "logs", `${name}.log`)
