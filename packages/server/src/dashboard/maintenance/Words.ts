/**
 * The words the maintenance pages use for a window's status and its updates' stages, each status with the
 * `state-*` class that colours it beside the words.
 */
import type { UpdateStatus } from "@signalman/core/api/Maintenance"
import type * as MaintenanceWindow from "@signalman/core/MaintenanceWindow"

export const statusWords: Readonly<
  Record<MaintenanceWindow.Status, { readonly label: string; readonly tone: string }>
> = {
  upcoming: { label: "Upcoming", tone: "state-pending" },
  running: { label: "In progress", tone: "state-degraded" },
  completed: { label: "Completed", tone: "state-up" },
  cancelled: { label: "Cancelled", tone: "state-paused" }
}

export const stageWords: Readonly<Record<UpdateStatus, string>> = {
  scheduled: "Scheduled",
  in_progress: "In progress",
  verifying: "Verifying",
  completed: "Completed"
}

export const stages: ReadonlyArray<UpdateStatus> = ["scheduled", "in_progress", "verifying", "completed"]
