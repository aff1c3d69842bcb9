/**
 * The monitor form's stored credentials as the page knows them: the fields standing for one (`data-stored-secret`,
 * opened empty since the API redacts it) and the boxes ticked to remove one (`data-clears`), for monitorBody's rule
 * on what a changed check must carry.
 */
import type { Context, StoredSecret } from "./monitorBody.js"

/** What the page knows about stored credentials, for monitorBody's rule. */
export const secretsOf = (form: HTMLFormElement): Pick<Context, "secrets" | "cleared"> => {
  const secrets: Array<StoredSecret> = []
  for (const field of form.querySelectorAll<HTMLInputElement>("input[data-stored-secret]")) {
    // A disabled field is not sent: its credential was removed, or its step no longer fills.
    if (field.disabled) continue
    secrets.push({ name: field.name, group: field.dataset["storedSecret"] ?? "", empty: field.value === "" })
  }
  const cleared = new Set<string>()
  for (const box of form.querySelectorAll<HTMLInputElement>("input[data-clears]")) {
    if (box.checked) cleared.add(box.dataset["clears"] ?? "")
  }
  return { secrets, cleared }
}
