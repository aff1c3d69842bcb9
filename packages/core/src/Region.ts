/**
 * The rules of probe regions (decisions.md "Regions, probe agents and browser flows"): which regions an operator may
 * delete, and which may have agents. Pure; the service loads the region with its live agent count and asks here.
 *
 * @since 0.1.0
 */
import * as Option from "effect/Option"
import * as ApiError from "./ApiError.js"

/**
 * The built-in region whose checks run in the service itself; it always exists.
 *
 * @since 0.1.0
 * @category constants
 */
export const LOCAL = "local"

/**
 * Why a region may not be deleted, if it may not: the built-in `local` region (disable it instead) and a region
 * with agents that are not revoked are `REGION_IN_USE`.
 *
 * @since 0.1.0
 * @category rules
 */
export const deletionRefusal = (region: {
  readonly id: string
  readonly agents: number
}): Option.Option<ApiError.ErrorOf<409>> => {
  if (region.id === LOCAL) {
    return Option.some(
      ApiError.make("REGION_IN_USE", "The built-in region local runs in the service itself; disable it instead")
    )
  }
  if (region.agents > 0) {
    return Option.some(
      ApiError.make("REGION_IN_USE", `Region ${region.id} still has ${region.agents} agents`, {
        details: { agents: region.agents }
      })
    )
  }
  return Option.none()
}

/**
 * Why an agent may not be minted for a region, if it may not: the built-in `local` region runs in the service itself,
 * so an agent there would run its checks from another machine under its name (422 `REGION_INVALID` on `region_id`).
 *
 * @since 0.1.0
 * @category rules
 */
export const agentRefusal = (regionId: string): Option.Option<ApiError.ErrorOf<422>> =>
  regionId === LOCAL
    ? Option.some(
        ApiError.make("REGION_INVALID", "The built-in region local runs in the service itself and takes no agents", {
          field: "region_id"
        })
      )
    : Option.none()
