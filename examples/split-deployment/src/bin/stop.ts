/**
 * `pnpm --dir examples/split-deployment stop`: stops every process the run's pid file (`state.json`) names, each
 * with SIGTERM and a bounded wait (`SPLIT_STOP_TIMEOUT_SECS`, 120; then SIGKILL, said so), in the order that
 * loses nothing:
 *
 * 1. the agents: they stop pulling, finish the checks under way and deliver every result through the balancer;
 * 2. the balancer: it stops taking connections and lets the requests in flight finish;
 * 3. the apis and the workers together: each drains (`/readyz` 503, in-flight requests and checks finish, pings
 *    and results written) and exits.
 *
 * Exits 0 when every process exited on SIGTERM, 1 when one had to be killed or is still there.
 */
import { stateDir } from "../Layout.js"
import * as Processes from "../Processes.js"
import * as RunState from "../RunState.js"

const dir = stateDir(process.env)
const timeoutSecs = Number(process.env["SPLIT_STOP_TIMEOUT_SECS"] ?? "120")
const say = (line: string) => process.stdout.write(`${line}\n`)

const main = async () => {
  const state = RunState.read(dir)
  if (state === undefined) {
    say("nothing to stop (no state.json)")
    return 0
  }
  let clean = true
  const stopAll = async (processes: ReadonlyArray<RunState.Process>) => {
    const outcomes = await Promise.all(
      processes.map(async (p) => ({ p, how: await Processes.stop(p.pid, timeoutSecs * 1000) }))
    )
    for (const { p, how } of outcomes) {
      say(`${p.name} (pid ${p.pid}): ${how}`)
      if (how === "killed") clean = false
    }
  }
  await stopAll(state.processes.filter((p) => p.role === "agent"))
  await stopAll(state.processes.filter((p) => p.role === "balancer"))
  await stopAll(state.processes.filter((p) => p.role === "api" || p.role === "worker"))
  const left = state.processes.filter((p) => Processes.alive(p.pid))
  if (left.length > 0) {
    say(`still running: ${left.map((p) => `${p.name} pid ${p.pid}`).join(", ")}`)
    return 1
  }
  RunState.remove(dir)
  return clean ? 0 : 1
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    say(`stop failed: ${error instanceof Error ? error.message : String(error)}`)
    process.exit(1)
  }
)
