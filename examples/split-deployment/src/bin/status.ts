/**
 * `pnpm --dir examples/split-deployment status`: each process of the run with whether it is running, and the
 * balancer's view of the apis (in rotation or not, requests each answered through it).
 */
import { stateDir } from "../Layout.js"
import * as Processes from "../Processes.js"
import * as RunState from "../RunState.js"

const say = (line: string) => process.stdout.write(`${line}\n`)
const state = RunState.read(stateDir(process.env))
if (state === undefined) {
  say("not running (no state.json)")
} else {
  say(`balancer ${state.balancer_url}, database ${state.database}, since ${state.started_at}`)
  for (const p of state.processes) {
    say(`  ${p.name.padEnd(14)} pid ${String(p.pid).padEnd(8)} ${Processes.alive(p.pid) ? "running" : "gone"}`)
  }
  try {
    const response = await fetch(`${state.balancer_url}/__balancer`, { signal: AbortSignal.timeout(2_000) })
    say(`  balancer view: ${await response.text()}`)
  } catch (error) {
    say(`  balancer does not answer: ${error instanceof Error ? error.message : String(error)}`)
  }
}
