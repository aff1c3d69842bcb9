/**
 * The incident writer as the process runs it: the groups and the workers that need it all provide this one value,
 * and Effect memoizes a layer by reference within a build, so the process has one writer.
 */
import * as Layer from "effect/Layer"
import { IncidentWriter } from "./IncidentWriter.js"
import * as Seams from "./Seams.js"

/** The incident writer with its ports bound to the outbox, maintenance windows and the delivery log. */
export const layer = IncidentWriter.Default.pipe(Layer.provideMerge(Seams.layer))
