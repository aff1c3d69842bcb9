/**
 * A settings page's content for the frame: its body inside `.settings`, so the group's styles (row headers read as
 * names, captions as headings) apply to its own pages only.
 */
import type * as Layout from "../Layout.js"
import { type Html, html } from "../Template.js"

export const content = (title: string, body: Html): Layout.Content => ({
  title,
  body: html`<div class="settings">${body}</div>`
})
