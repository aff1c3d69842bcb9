/**
 * Ready-to-paste ways to ping a heartbeat monitor (docs/heartbeats.md): curl, a crontab line on the monitor's own
 * period, a systemd service and timer that report the start and the outcome, and PowerShell for a scheduled task.
 * Each reports a failure as such (`/fail` or the exit status), so a broken job turns the monitor down at once rather
 * than after a silence.
 */

export interface Snippet {
  readonly key: string
  readonly title: string
  readonly text: string
}

/** Where a job goes in the snippets; the person puts theirs in its place. */
const JOB = "/usr/local/bin/your-job"

/**
 * A cron schedule running every `periodSecs`, or undefined where cron cannot say it exactly (cron's steps divide a
 * minute of the hour, an hour of the day, or are a day or a week).
 */
export const cronSchedule = (periodSecs: number): string | undefined => {
  if (periodSecs % 60 !== 0) return undefined
  const minutes = periodSecs / 60
  if (minutes < 60) return 60 % minutes === 0 ? (minutes === 1 ? "* * * * *" : `*/${minutes} * * * *`) : undefined
  if (minutes % 60 !== 0) return undefined
  const hours = minutes / 60
  if (hours < 24) return 24 % hours === 0 ? (hours === 1 ? "0 * * * *" : `0 */${hours} * * *`) : undefined
  if (hours === 24) return "0 3 * * *"
  if (hours === 24 * 7) return "0 3 * * 1"
  return undefined
}

const curl = (url: string, bin = "curl") => `${bin} -fsS -m 10 --retry 5 -o /dev/null ${url}`

/** Every snippet for a monitor whose ping URL is `url` and whose period is `periodSecs`. */
export const snippets = (url: string, periodSecs: number): ReadonlyArray<Snippet> => {
  const schedule = cronSchedule(periodSecs)
  return [
    {
      key: "curl",
      title: "curl",
      text: [
        "# after the job succeeds",
        curl(url),
        "",
        "# or: say when it starts, then send its exit status and its log as the run's output",
        curl(`${url}/start`),
        `${JOB} > /tmp/your-job.log 2>&1`,
        `curl -fsS -m 10 --retry 5 -o /dev/null --data-binary @/tmp/your-job.log ${url}/$?`
      ].join("\n")
    },
    {
      key: "crontab",
      title: "crontab",
      text: [
        schedule === undefined
          ? `# cron cannot run exactly every ${periodSecs} s: set the schedule nearest to it`
          : "# minute hour day-of-month month day-of-week command",
        `${schedule ?? "0 3 * * *"} ${JOB} && ${curl(url)} || ${curl(`${url}/fail`)}`
      ].join("\n")
    },
    {
      key: "systemd-service",
      title: "systemd service (/etc/systemd/system/your-job.service)",
      text: [
        "[Unit]",
        "Description=Your job, reported to Signalman",
        "",
        "[Service]",
        "Type=oneshot",
        `ExecStartPre=-${curl(`${url}/start`, "/usr/bin/curl")}`,
        `ExecStart=${JOB}`,
        // systemd expands $VAR itself; $$ passes a dollar sign on to the shell.
        `ExecStopPost=/bin/sh -c 'if [ "$$SERVICE_RESULT" = success ]; then s=0; else s=fail; fi; ${curl(
          `${url}/$$s`,
          "/usr/bin/curl"
        )}'`
      ].join("\n")
    },
    {
      key: "systemd-timer",
      title: "systemd timer (/etc/systemd/system/your-job.timer)",
      text: [
        "[Unit]",
        `Description=Run your job every ${periodSecs} s`,
        "",
        "[Timer]",
        "OnBootSec=1min",
        `OnUnitActiveSec=${periodSecs}s`,
        "",
        "[Install]",
        "WantedBy=timers.target",
        "",
        "# then: systemctl daemon-reload && systemctl enable --now your-job.timer"
      ].join("\n")
    },
    {
      key: "powershell",
      title: "PowerShell (a scheduled task's script)",
      text: [
        '$ErrorActionPreference = "Stop"',
        "try {",
        "    & C:\\jobs\\your-job.ps1",
        `    Invoke-RestMethod -Uri "${url}" -TimeoutSec 10 | Out-Null`,
        "} catch {",
        `    Invoke-RestMethod -Uri "${url}/fail" -Method Post -Body $_.Exception.Message -TimeoutSec 10 | Out-Null`,
        "}"
      ].join("\n")
    }
  ]
}
