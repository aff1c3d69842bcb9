/** The private viewers' side of `ViewerRecords`: the owner's records of a page's viewers and its password. */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ViewerRecords } from "../statuspages/ViewerRecords.js"
import { Viewers } from "./Viewers.js"

export const layer = Layer.effect(
  ViewerRecords,
  Effect.map(Viewers, (viewers) => ({
    list: viewers.list,
    block: viewers.block,
    unblock: viewers.unblock,
    history: viewers.history,
    passwordRecord: viewers.passwordRecord,
    passwordSignOut: viewers.passwordSignOut
  }))
)
