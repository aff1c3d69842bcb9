/**
 * The fixed text of a public status page in each of its languages (`public_locale`), and dates through `Intl`.
 * What the org writes (names, incident text) is shown as written.
 */
import type { PublicLocale } from "@signalman/core/PublicLocale"
import type { ComponentStatus, DayStatus, OverallStatus } from "@signalman/core/PublicStatus"

export interface Text {
  readonly overall: Record<OverallStatus, string>
  readonly status: Record<ComponentStatus | DayStatus, string>
  readonly phase: Record<string, string>
  readonly maintenanceStatus: Record<string, string>
  readonly components: string
  readonly activeIncidents: string
  readonly pastIncidents: string
  readonly noIncidents: string
  readonly maintenance: string
  readonly upcoming: string
  readonly inProgress: string
  readonly uptime: string
  readonly noData: string
  readonly daysAgo: (n: number) => string
  readonly today: string
  readonly history: (days: number) => string
  readonly started: string
  readonly resolved: string
  readonly updates: string
  readonly back: string
  readonly poweredBy: string
  readonly incident: string
  readonly skip: string
  readonly incidentsOn: (n: number) => string
  readonly feed: string
  readonly other: string
}

const phases = (investigating: string, identified: string, monitoring: string, resolved: string, pm: string) => ({
  investigating,
  identified,
  monitoring,
  resolved,
  postmortem: pm
})

const en: Text = {
  overall: {
    operational: "All systems operational",
    degraded: "Degraded performance",
    partial_outage: "Partial outage",
    major_outage: "Major outage",
    maintenance: "Maintenance in progress"
  },
  status: {
    operational: "Operational",
    degraded: "Degraded performance",
    partial_outage: "Partial outage",
    major_outage: "Major outage",
    maintenance: "Under maintenance",
    unknown: "No data yet",
    no_data: "No data"
  },
  phase: phases("Investigating", "Identified", "Monitoring", "Resolved", "Postmortem"),
  maintenanceStatus: {
    scheduled: "Scheduled",
    in_progress: "In progress",
    verifying: "Verifying",
    completed: "Completed",
    upcoming: "Scheduled",
    running: "In progress"
  },
  components: "Components",
  activeIncidents: "Active incidents",
  pastIncidents: "Past incidents",
  noIncidents: "No incidents reported in the last 7 days.",
  maintenance: "Maintenance",
  upcoming: "Scheduled maintenance",
  inProgress: "Maintenance in progress",
  uptime: "uptime",
  noData: "no data",
  daysAgo: (n) => `${n} days ago`,
  today: "Today",
  history: (days) => `Uptime history, last ${days} days`,
  started: "Started",
  resolved: "Resolved",
  updates: "Updates",
  back: "Back to the status page",
  poweredBy: "Powered by Signalman",
  incident: "Incident",
  skip: "Skip to the current status",
  incidentsOn: (n) => (n === 1 ? "1 incident" : `${n} incidents`),
  feed: "Incident feed (RSS)",
  other: "Other"
}

const de: Text = {
  overall: {
    operational: "Alle Systeme betriebsbereit",
    degraded: "Eingeschränkte Leistung",
    partial_outage: "Teilweiser Ausfall",
    major_outage: "Schwerer Ausfall",
    maintenance: "Wartung läuft"
  },
  status: {
    operational: "Betriebsbereit",
    degraded: "Eingeschränkte Leistung",
    partial_outage: "Teilweiser Ausfall",
    major_outage: "Schwerer Ausfall",
    maintenance: "In Wartung",
    unknown: "Noch keine Daten",
    no_data: "Keine Daten"
  },
  phase: phases("Untersuchung", "Ursache erkannt", "Beobachtung", "Behoben", "Nachbetrachtung"),
  maintenanceStatus: {
    scheduled: "Geplant",
    in_progress: "Läuft",
    verifying: "Wird geprüft",
    completed: "Abgeschlossen",
    upcoming: "Geplant",
    running: "Läuft"
  },
  components: "Komponenten",
  activeIncidents: "Aktuelle Störungen",
  pastIncidents: "Vergangene Störungen",
  noIncidents: "Keine Störungen in den letzten 7 Tagen.",
  maintenance: "Wartung",
  upcoming: "Geplante Wartung",
  inProgress: "Laufende Wartung",
  uptime: "Verfügbarkeit",
  noData: "keine Daten",
  daysAgo: (n) => `vor ${n} Tagen`,
  today: "Heute",
  history: (days) => `Verfügbarkeit der letzten ${days} Tage`,
  started: "Begonnen",
  resolved: "Behoben",
  updates: "Updates",
  back: "Zurück zur Statusseite",
  poweredBy: "Bereitgestellt von Signalman",
  incident: "Störung",
  skip: "Zum aktuellen Status springen",
  incidentsOn: (n) => (n === 1 ? "1 Störung" : `${n} Störungen`),
  feed: "Störungs-Feed (RSS)",
  other: "Sonstige"
}

const fr: Text = {
  overall: {
    operational: "Tous les systèmes sont opérationnels",
    degraded: "Performances dégradées",
    partial_outage: "Panne partielle",
    major_outage: "Panne majeure",
    maintenance: "Maintenance en cours"
  },
  status: {
    operational: "Opérationnel",
    degraded: "Performances dégradées",
    partial_outage: "Panne partielle",
    major_outage: "Panne majeure",
    maintenance: "En maintenance",
    unknown: "Pas encore de données",
    no_data: "Aucune donnée"
  },
  phase: phases("Enquête en cours", "Cause identifiée", "Surveillance", "Résolu", "Analyse post-incident"),
  maintenanceStatus: {
    scheduled: "Planifiée",
    in_progress: "En cours",
    verifying: "Vérification",
    completed: "Terminée",
    upcoming: "Planifiée",
    running: "En cours"
  },
  components: "Composants",
  activeIncidents: "Incidents en cours",
  pastIncidents: "Incidents passés",
  noIncidents: "Aucun incident signalé ces 7 derniers jours.",
  maintenance: "Maintenance",
  upcoming: "Maintenance planifiée",
  inProgress: "Maintenance en cours",
  uptime: "disponibilité",
  noData: "aucune donnée",
  daysAgo: (n) => `il y a ${n} jours`,
  today: "Aujourd’hui",
  history: (days) => `Disponibilité des ${days} derniers jours`,
  started: "Début",
  resolved: "Résolu",
  updates: "Mises à jour",
  back: "Retour à la page de statut",
  poweredBy: "Propulsé par Signalman",
  incident: "Incident",
  skip: "Aller à l’état actuel",
  incidentsOn: (n) => (n === 1 ? "1 incident" : `${n} incidents`),
  feed: "Flux des incidents (RSS)",
  other: "Autres"
}

const es: Text = {
  overall: {
    operational: "Todos los sistemas operativos",
    degraded: "Rendimiento degradado",
    partial_outage: "Interrupción parcial",
    major_outage: "Interrupción grave",
    maintenance: "Mantenimiento en curso"
  },
  status: {
    operational: "Operativo",
    degraded: "Rendimiento degradado",
    partial_outage: "Interrupción parcial",
    major_outage: "Interrupción grave",
    maintenance: "En mantenimiento",
    unknown: "Aún sin datos",
    no_data: "Sin datos"
  },
  phase: phases("Investigando", "Identificado", "Supervisando", "Resuelto", "Análisis posterior"),
  maintenanceStatus: {
    scheduled: "Programado",
    in_progress: "En curso",
    verifying: "Verificando",
    completed: "Completado",
    upcoming: "Programado",
    running: "En curso"
  },
  components: "Componentes",
  activeIncidents: "Incidentes activos",
  pastIncidents: "Incidentes anteriores",
  noIncidents: "No se han registrado incidentes en los últimos 7 días.",
  maintenance: "Mantenimiento",
  upcoming: "Mantenimiento programado",
  inProgress: "Mantenimiento en curso",
  uptime: "disponibilidad",
  noData: "sin datos",
  daysAgo: (n) => `hace ${n} días`,
  today: "Hoy",
  history: (days) => `Disponibilidad de los últimos ${days} días`,
  started: "Inicio",
  resolved: "Resuelto",
  updates: "Actualizaciones",
  back: "Volver a la página de estado",
  poweredBy: "Con la tecnología de Signalman",
  incident: "Incidente",
  skip: "Ir al estado actual",
  incidentsOn: (n) => (n === 1 ? "1 incidente" : `${n} incidentes`),
  feed: "Feed de incidentes (RSS)",
  other: "Otros"
}

const pt: Text = {
  overall: {
    operational: "Todos os sistemas operacionais",
    degraded: "Desempenho degradado",
    partial_outage: "Interrupção parcial",
    major_outage: "Interrupção grave",
    maintenance: "Manutenção em andamento"
  },
  status: {
    operational: "Operacional",
    degraded: "Desempenho degradado",
    partial_outage: "Interrupção parcial",
    major_outage: "Interrupção grave",
    maintenance: "Em manutenção",
    unknown: "Ainda sem dados",
    no_data: "Sem dados"
  },
  phase: phases("Investigando", "Identificado", "Monitorando", "Resolvido", "Análise pós-incidente"),
  maintenanceStatus: {
    scheduled: "Agendada",
    in_progress: "Em andamento",
    verifying: "Verificando",
    completed: "Concluída",
    upcoming: "Agendada",
    running: "Em andamento"
  },
  components: "Componentes",
  activeIncidents: "Incidentes ativos",
  pastIncidents: "Incidentes anteriores",
  noIncidents: "Nenhum incidente registrado nos últimos 7 dias.",
  maintenance: "Manutenção",
  upcoming: "Manutenção agendada",
  inProgress: "Manutenção em andamento",
  uptime: "disponibilidade",
  noData: "sem dados",
  daysAgo: (n) => `há ${n} dias`,
  today: "Hoje",
  history: (days) => `Disponibilidade dos últimos ${days} dias`,
  started: "Início",
  resolved: "Resolvido",
  updates: "Atualizações",
  back: "Voltar à página de status",
  poweredBy: "Fornecido por Signalman",
  incident: "Incidente",
  skip: "Ir para o estado atual",
  incidentsOn: (n) => (n === 1 ? "1 incidente" : `${n} incidentes`),
  feed: "Feed de incidentes (RSS)",
  other: "Outros"
}

const it: Text = {
  overall: {
    operational: "Tutti i sistemi operativi",
    degraded: "Prestazioni ridotte",
    partial_outage: "Interruzione parziale",
    major_outage: "Interruzione grave",
    maintenance: "Manutenzione in corso"
  },
  status: {
    operational: "Operativo",
    degraded: "Prestazioni ridotte",
    partial_outage: "Interruzione parziale",
    major_outage: "Interruzione grave",
    maintenance: "In manutenzione",
    unknown: "Ancora nessun dato",
    no_data: "Nessun dato"
  },
  phase: phases("In analisi", "Causa individuata", "In osservazione", "Risolto", "Analisi post-incidente"),
  maintenanceStatus: {
    scheduled: "Pianificata",
    in_progress: "In corso",
    verifying: "In verifica",
    completed: "Completata",
    upcoming: "Pianificata",
    running: "In corso"
  },
  components: "Componenti",
  activeIncidents: "Incidenti in corso",
  pastIncidents: "Incidenti passati",
  noIncidents: "Nessun incidente segnalato negli ultimi 7 giorni.",
  maintenance: "Manutenzione",
  upcoming: "Manutenzione pianificata",
  inProgress: "Manutenzione in corso",
  uptime: "disponibilità",
  noData: "nessun dato",
  daysAgo: (n) => `${n} giorni fa`,
  today: "Oggi",
  history: (days) => `Disponibilità degli ultimi ${days} giorni`,
  started: "Inizio",
  resolved: "Risolto",
  updates: "Aggiornamenti",
  back: "Torna alla pagina di stato",
  poweredBy: "Realizzato con Signalman",
  incident: "Incidente",
  skip: "Vai allo stato attuale",
  incidentsOn: (n) => (n === 1 ? "1 incidente" : `${n} incidenti`),
  feed: "Feed degli incidenti (RSS)",
  other: "Altro"
}

const nl: Text = {
  overall: {
    operational: "Alle systemen operationeel",
    degraded: "Verminderde prestaties",
    partial_outage: "Gedeeltelijke storing",
    major_outage: "Ernstige storing",
    maintenance: "Onderhoud bezig"
  },
  status: {
    operational: "Operationeel",
    degraded: "Verminderde prestaties",
    partial_outage: "Gedeeltelijke storing",
    major_outage: "Ernstige storing",
    maintenance: "In onderhoud",
    unknown: "Nog geen gegevens",
    no_data: "Geen gegevens"
  },
  phase: phases("Onderzoek", "Oorzaak gevonden", "Monitoring", "Opgelost", "Evaluatie"),
  maintenanceStatus: {
    scheduled: "Gepland",
    in_progress: "Bezig",
    verifying: "Controle",
    completed: "Afgerond",
    upcoming: "Gepland",
    running: "Bezig"
  },
  components: "Componenten",
  activeIncidents: "Actuele storingen",
  pastIncidents: "Eerdere storingen",
  noIncidents: "Geen storingen gemeld in de afgelopen 7 dagen.",
  maintenance: "Onderhoud",
  upcoming: "Gepland onderhoud",
  inProgress: "Onderhoud bezig",
  uptime: "beschikbaarheid",
  noData: "geen gegevens",
  daysAgo: (n) => `${n} dagen geleden`,
  today: "Vandaag",
  history: (days) => `Beschikbaarheid van de afgelopen ${days} dagen`,
  started: "Begonnen",
  resolved: "Opgelost",
  updates: "Updates",
  back: "Terug naar de statuspagina",
  poweredBy: "Mogelijk gemaakt door Signalman",
  incident: "Storing",
  skip: "Naar de huidige status",
  incidentsOn: (n) => (n === 1 ? "1 storing" : `${n} storingen`),
  feed: "Storingsfeed (RSS)",
  other: "Overig"
}

export const texts: Record<PublicLocale, Text> = { en, de, fr, es, pt, it, nl }

const formats = new Map<string, Intl.DateTimeFormat>()

/** A date and time in the page's language, in UTC (the page cannot know the visitor's zone without script). */
export const formatInstant = (locale: PublicLocale, ms: number): string => {
  let format = formats.get(locale)
  if (format === undefined) {
    format = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" })
    formats.set(locale, format)
  }
  return `${format.format(ms)} UTC`
}

const dayFormats = new Map<string, Intl.DateTimeFormat>()

/** A calendar day (`YYYY-MM-DD`) in the page's language. */
export const formatDay = (locale: PublicLocale, day: string): string => {
  let format = dayFormats.get(locale)
  if (format === undefined) {
    format = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeZone: "UTC" })
    dayFormats.set(locale, format)
  }
  return format.format(Date.parse(`${day}T00:00:00Z`))
}

const pctFormats = new Map<string, Intl.NumberFormat>()

/** A percentage with up to three decimals, in the page's language. */
export const formatPct = (locale: PublicLocale, pct: number, digits = 3): string => {
  const key = `${locale}:${digits}`
  let format = pctFormats.get(key)
  if (format === undefined) {
    format = new Intl.NumberFormat(locale, { style: "percent", maximumFractionDigits: digits })
    pctFormats.set(key, format)
  }
  return format.format(pct / 100)
}

const shortDayFormats = new Map<string, Intl.DateTimeFormat>()

/** A UTC day (`YYYY-MM-DD`) as day and month, for the label of one day bar. */
export const formatShortDay = (locale: PublicLocale, day: string): string => {
  let format = shortDayFormats.get(locale)
  if (format === undefined) {
    format = new Intl.DateTimeFormat(locale, { day: "numeric", month: "short", timeZone: "UTC" })
    shortDayFormats.set(locale, format)
  }
  return format.format(Date.parse(`${day}T00:00:00Z`))
}
