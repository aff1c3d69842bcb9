/**
 * @since 0.1.0
 */

/**
 * @since 0.1.0
 */
export * as ApiError from "./ApiError.js"
/**
 * @since 0.1.0
 */
export * as Channel from "./Channel.js"
/**
 * @since 0.1.0
 */
export * as CheckResult from "./CheckResult.js"
/**
 * @since 0.1.0
 */
export * as CheckSpec from "./CheckSpec.js"
/**
 * @since 0.1.0
 */
export * as Confirmation from "./Confirmation.js"
/**
 * @since 0.1.0
 */
export * as DeclaredIncident from "./DeclaredIncident.js"
/**
 * @since 0.1.0
 */
export * as DecodeFailure from "./DecodeFailure.js"
/**
 * @since 0.1.0
 */
export * as DeliveryBackoff from "./DeliveryBackoff.js"
/**
 * @since 0.1.0
 */
export * as Incident from "./Incident.js"
/**
 * @since 0.1.0
 */
export * as IncidentMachine from "./IncidentMachine.js"
/**
 * @since 0.1.0
 */
export * as IncidentNarration from "./IncidentNarration.js"
/**
 * @since 0.1.0
 */
export * as MaintenanceWindow from "./MaintenanceWindow.js"
/**
 * @since 0.2.0
 */
export * as ManagedBy from "./ManagedBy.js"
/**
 * @since 0.2.0
 */
export * as MonitorShare from "./MonitorShare.js"
/**
 * @since 0.1.0
 */
export * as Notification from "./Notification.js"
/**
 * @since 0.2.0
 */
export * as PageSubscription from "./PageSubscription.js"
/**
 * @since 0.1.0
 */
export * as Pagination from "./Pagination.js"
/**
 * @since 0.2.0
 */
export * as PublicLocale from "./PublicLocale.js"
/**
 * @since 0.2.0
 */
export * as PublicStatus from "./PublicStatus.js"
/**
 * @since 0.1.0
 */
export * as RegionAdvisory from "./RegionAdvisory.js"
/**
 * @since 0.1.0
 */
export * as RegionAgreement from "./RegionAgreement.js"
/**
 * @since 0.1.0
 */
export * as ReminderSchedule from "./ReminderSchedule.js"
/**
 * @since 0.1.0
 */
export * as RequestBody from "./RequestBody.js"
/**
 * @since 0.2.0
 */
export * as StatusPage from "./StatusPage.js"
/**
 * @since 0.1.0
 */
export * as Target from "./Target.js"
/**
 * @since 0.1.0
 */
export * as TargetRules from "./TargetRules.js"
/**
 * @since 0.1.0
 */
export * as Variable from "./Variable.js"
/**
 * @since 0.1.0
 */
export * as Variables from "./Variables.js"
